package vspawn

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// A server starts programs one after another in the same box, and each
// child's namespaces and confinement cost more than its exec. Park makes
// the next one ahead: a child that joins the user (and network)
// namespace, if given, makes its own as Start's would, makes the caller's calls,
// closes every descriptor but a socket, and waits on that socket.
// (*Parked).Start sends it the program's descriptors, having written the
// program, its arguments, environment and directory where the child's
// remaining calls read them, and waits until the child has executed it
// (or failed): the kernel clears a word and wakes its waiter at the exec
// (CLONE_CHILD_CLEARTID). Until then the child runs nothing but its
// calls; it holds no descriptor of the caller's, so no pipe of another
// program stays open because of it.

// ParkAttr is what a parked child is made with: Start's Attr without the
// program, which it is given when it starts.
type ParkAttr struct {
	// Cloneflags are the namespaces the child makes (not a user
	// namespace: it joins JoinUser, and JoinNet, when set).
	Cloneflags        uintptr
	JoinUser, JoinNet *os.File
	Setpgid           bool
	Pdeathsig         syscall.Signal // from the calling thread, which must outlive the program
	Setup             *Calls
	Rlimits           []Rlimit
	Files             int // how many descriptors the program gets
}

// Parked is a child made ahead by Park, waiting for its program.
type Parked struct {
	pid   int
	files int
	sock  int // the caller's end of the socket the child waits on; -1 once sent
	state atomic.Int32

	b     builder
	stack []byte
	ptid  *int32 // the child's pid, written by the kernel (CLONE_PARENT_SETTID)
	ctid  *int32 // 1 until the child has executed its program or ended
	// reached is set by the child just before its exec: a child killed
	// before has not executed anything.
	reached *int32
	failed  *[2]int64
	wait    int // the op that waits for the descriptors
	chdir   int
	exec    int
	keep    []any // the strings of the program Start was given
}

const (
	parked  = 0
	started = 1
	dropped = 2
)

// ErrNotParked is a Parked that cannot take the program: it was used or
// discarded, it is not ready, or the program does not fit (Files). The
// caller starts the program another way.
var ErrNotParked = errors.New("vspawn: the parked child cannot take this program")

// Park makes a child as ParkAttr says, ready for (*Parked).Start. The
// calling goroutine must be locked to its thread when Pdeathsig is set.
func Park(a ParkAttr) (*Parked, error) {
	if a.Cloneflags&syscall.CLONE_NEWUSER != 0 {
		return nil, errors.New("vspawn: a parked child joins a user namespace made earlier, or none")
	}
	if a.Files < 1 {
		return nil, errors.New("vspawn: a parked child needs the number of its descriptors")
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("vspawn: socketpair: %w", err)
	}
	childEnd := fds[1]
	defer syscall.Close(childEnd)
	p := &Parked{files: a.Files, sock: fds[0], ptid: new(int32), ctid: new(int32), reached: new(int32), failed: new([2]int64)}
	*p.ctid = 1
	b := &p.b
	if a.JoinUser != nil {
		b.Add("setns user", sysSetns, a.JoinUser.Fd(), syscall.CLONE_NEWUSER)
	}
	if a.JoinNet != nil {
		b.Add("setns net", sysSetns, a.JoinNet.Fd(), syscall.CLONE_NEWNET)
	}
	// No CLONE_VFORK: the first child ends once this one is made, and
	// the caller goes on while it parks.
	inner := b.Add("clone", syscall.SYS_CLONE,
		a.Cloneflags|syscall.CLONE_VM|syscall.CLONE_PARENT|syscall.CLONE_PARENT_SETTID|syscall.CLONE_CHILD_CLEARTID|uintptr(syscall.SIGCHLD),
		0, uintptr(unsafe.Pointer(p.ptid)), uintptr(unsafe.Pointer(p.ctid)))
	b.ops[inner].optional = optionalClone
	if err := b.childAttrs(a.Setpgid, a.Pdeathsig, a.Setup); err != nil {
		syscall.Close(p.sock)
		return nil, err
	}
	// Nothing of the caller's but the socket while it waits.
	if childEnd > 0 {
		b.Add("close_range", sysCloseRange, 0, uintptr(childEnd-1), 0)
	}
	b.Add("close_range", sysCloseRange, uintptr(childEnd+1), ^uintptr(0), 0)
	// What does not depend on the program is done before it comes,
	// off its start's path: the handlers reset (signals stay blocked
	// until just before the exec) and the limits set.
	b.resetSignals()
	b.setRlimits(a.Rlimits)
	msg, received := b.rightsMessage(a.Files)
	for i := range received {
		received[i] = -1 // none sent: the dup below fails
	}
	p.wait = b.Add("wait for the program", syscall.SYS_RECVMSG, uintptr(childEnd), uintptr(unsafe.Pointer(msg)), syscall.MSG_CMSG_CLOEXEC)
	// The descriptors received, as Start places its own.
	b.placeFiles(a.Files, func(i int) int {
		load := b.Add("descriptor "+strconv.Itoa(i), 0, uintptr(unsafe.Pointer(&received[i])))
		b.ops[load].optional = opLoad
		c := b.Add("dup descriptor "+strconv.Itoa(i), syscall.SYS_FCNTL, 0, fDupfdCloexc, uintptr(max(a.Files, 3)))
		b.UseResult(c, 0, load)
		return c
	})
	p.chdir = b.Add("chdir", syscall.SYS_CHDIR, 0)
	mask, restore, err := blockSignals()
	if err != nil {
		syscall.Close(p.sock)
		return nil, err
	}
	b.Add("rt_sigprocmask", syscall.SYS_RT_SIGPROCMASK, sigSetMask, uintptr(unsafe.Pointer(mask)), 0, 8)
	b.Keep(mask)
	b.StoreResult(p.reached, p.wait) // the byte received: 1
	p.exec = b.Add("execve", syscall.SYS_EXECVE, 0, 0, 0)
	p.stack = make([]byte, 4<<10)
	top := (uintptr(unsafe.Pointer(&p.stack[len(p.stack)-1])) + 1) &^ 15
	first := spawn(top, syscall.CLONE_VM|syscall.CLONE_VFORK|uintptr(syscall.SIGCHLD), &b.ops[0], len(b.ops), p.failed)
	restore()
	if first < 0 {
		syscall.Close(p.sock)
		return nil, &CloneError{Err: syscall.Errno(-first)}
	}
	// The first child has ended: after its clone, or having failed.
	reap(int(first))
	p.pid = int(atomic.LoadInt32(p.ptid))
	if p.pid <= 0 {
		syscall.Close(p.sock)
		failed := [2]int64{atomic.LoadInt64(&p.failed[0]), atomic.LoadInt64(&p.failed[1])}
		if failed[0] == 0 {
			failed[0] = int64(inner) + 1
		}
		return nil, b.failure(failed)
	}
	return p, nil
}

// Pid is the parked child's pid, the program's once started.
func (p *Parked) Pid() int { return p.pid }

// Start gives the parked child its program and descriptors, and returns
// once it has executed the program (its pid) or failed. ErrNotParked
// (the child cannot take it: the caller starts the program another way)
// leaves nothing started; a CallError is the program's start that failed,
// as Start's.
func (p *Parked) Start(path string, argv, env []string, dir string, files []uintptr) (int, error) {
	if len(files) != p.files {
		return 0, ErrNotParked
	}
	for _, s := range append(append([]string{path, dir}, argv...), env...) {
		if _, err := syscall.BytePtrFromString(s); err != nil {
			return 0, fmt.Errorf("vspawn: %w", err)
		}
	}
	if !p.state.CompareAndSwap(parked, started) {
		return 0, ErrNotParked
	}
	defer runtime.KeepAlive(p) // its memory is the child's until the exec
	if atomic.LoadInt32(p.ctid) == 0 {
		// It has ended: its calls failed.
		p.end()
		return 0, ErrNotParked
	}
	if dir == "" {
		dir = "."
	}
	var c Calls
	p.b.ops[p.chdir].a[0] = c.String(dir)
	p.b.ops[p.exec].a[0] = c.String(path)
	p.b.ops[p.exec].a[1] = p.b.cstrs(argv)
	p.b.ops[p.exec].a[2] = p.b.cstrs(env)
	p.keep = append(p.keep, c.keep)
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f)
	}
	err := syscall.Sendmsg(p.sock, []byte{1}, syscall.UnixRights(fds...), nil, syscall.MSG_NOSIGNAL)
	syscall.Close(p.sock)
	p.sock = -1
	if err != nil {
		p.end()
		return 0, ErrNotParked
	}
	for atomic.LoadInt32(p.ctid) != 0 {
		ts := syscall.Timespec{Sec: 1}
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(p.ctid)), futexWait, 1, uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
	i := int(atomic.LoadInt64(&p.failed[0])) - 1
	if i < 0 && atomic.LoadInt32(p.reached) != 0 {
		return p.pid, nil
	}
	reap(p.pid)
	if i <= p.wait {
		return 0, ErrNotParked // its own calls failed, before it had the program
	}
	name := "execve " + path
	if i < p.exec {
		name = p.b.names[i]
	}
	return 0, &CallError{Call: name, Err: syscall.Errno(-atomic.LoadInt64(&p.failed[1])), Exec: i >= p.exec}
}

// Discard ends a child that was not started; one that was is left alone.
func (p *Parked) Discard() {
	if p.state.CompareAndSwap(parked, dropped) {
		syscall.Kill(p.pid, syscall.SIGKILL)
		p.end()
	}
}

// end reaps the child, which has ended or was killed, and closes the
// socket.
func (p *Parked) end() {
	reap(p.pid)
	if p.sock >= 0 {
		syscall.Close(p.sock)
		p.sock = -1
	}
}

const futexWait = 0 // not private: the kernel's wake at the exec is not
