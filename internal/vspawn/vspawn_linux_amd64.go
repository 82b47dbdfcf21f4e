package vspawn

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// Available says whether Start works on this platform.
const Available = true

func spawn(stackTop uintptr, flags uintptr, ops *op, nops int, failed *[2]int64) (pid int64)

// Attr is what the child is made with.
type Attr struct {
	Path string
	Argv []string
	Env  []string
	Dir  string // "" keeps the caller's
	// Files are the child's descriptors: Files[i] becomes descriptor i.
	// Every other descriptor is closed at the exec, the caller's that are
	// not close-on-exec too (from Linux 5.11, which can mark them all).
	Files []uintptr
	// Cloneflags are the namespaces to make (CLONE_NEW*).
	Cloneflags uintptr
	// UID and GID are mapped to 0 in the new user namespace, when
	// Cloneflags has CLONE_NEWUSER.
	UID, GID int
	// JoinUser and JoinNet, when set, are namespaces the child enters
	// first: a user namespace made earlier (whose owner this process's
	// user is) and a network namespace it owns. The namespaces of
	// Cloneflags (which must not hold CLONE_NEWUSER) are then made by a
	// second clone inside them, whose child is the program, a child of
	// this process; the first child exits once it has been executed.
	JoinUser, JoinNet *os.File
	Setpgid           bool           // a process group of its own
	Pdeathsig         syscall.Signal // sent to the child when the calling thread ends; 0: none
	// Setup, when set, is made by the child in its namespaces before its
	// descriptors are placed (see Calls).
	Setup *Calls
	// Rlimits are set by the child last, before its exec.
	Rlimits []Rlimit
}

// builder builds the child's whole list (see Calls).
type builder struct{ Calls }

func (b *builder) bytes(s string) (uintptr, uintptr) {
	p := []byte(s)
	b.keep = append(b.keep, p)
	return uintptr(unsafe.Pointer(&p[0])), uintptr(len(p))
}

func (b *builder) cstrs(ss []string) uintptr {
	arr := make([]*byte, len(ss)+1)
	for i, s := range ss {
		p, err := syscall.BytePtrFromString(s)
		if err != nil {
			panic(err)
		}
		arr[i] = p
	}
	b.keep = append(b.keep, arr)
	return uintptr(unsafe.Pointer(&arr[0]))
}

// appendCalls adds c's calls, an earlier call's result they use renumbered.
func (b *builder) appendCalls(c *Calls) error {
	if c.err != nil {
		return c.err
	}
	base := int64(len(b.ops))
	for _, o := range c.ops {
		if o.refArg >= 0 || o.optional == opStore {
			o.refSrc += base
		}
		b.ops = append(b.ops, o)
	}
	b.names = append(b.names, c.names...)
	b.keep = append(b.keep, c.keep)
	return nil
}

// writeFile adds open, write and close of path with data.
func (b *builder) writeFile(path, data string) {
	open := b.Add("open "+path, syscall.SYS_OPEN, b.String(path), syscall.O_WRONLY|syscall.O_CLOEXEC)
	p, n := b.bytes(data)
	w := b.Add("write "+path, syscall.SYS_WRITE, 0, p, n)
	b.UseResult(w, 0, open)
	c := b.Add("close "+path, syscall.SYS_CLOSE, 0)
	b.UseResult(c, 0, open)
}

const (
	sysSetns          = 308 // amd64
	sysCloseRange     = 436 // amd64
	closeRangeCloexec = 1 << 2
	sigSetMask        = 2
	prSetPdeath       = 1
	fDupfdCloexc      = 1030
)

// sigaction is the kernel's struct sigaction on amd64.
type sigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// CloneError is a clone the kernel refused: no child was made, and the
// caller may start the program another way.
type CloneError struct{ Err syscall.Errno }

func (e *CloneError) Error() string { return "vspawn: clone: " + e.Err.Error() }
func (e *CloneError) Unwrap() error { return e.Err }

// blockSignals locks the calling goroutine to its thread and blocks
// every signal there, so that none runs a handler of Go's in the child
// before it has put them back; mask is the thread's mask before, which
// restore puts back (and unlocks the thread).
func blockSignals() (mask *uint64, restore func(), err error) {
	runtime.LockOSThread()
	all, old := ^uint64(0), new(uint64)
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigSetMask, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(old)), 8, 0, 0); errno != 0 {
		runtime.UnlockOSThread()
		return nil, nil, fmt.Errorf("vspawn: block signals: %w", errno)
	}
	return old, func() {
		syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigSetMask, uintptr(unsafe.Pointer(old)), 0, 8, 0, 0)
		runtime.UnlockOSThread()
	}, nil
}

// run clones the child, sharing this process's memory, with the
// namespaces of flags, onto a stack of its own, where it makes b's calls;
// the calling thread sleeps until the child has executed a program or
// ended (as vfork does). Its signals must be blocked (blockSignals).
func (b *builder) run(flags uintptr) (pid int64, failed [2]int64) {
	stack := make([]byte, 4<<10)
	top := (uintptr(unsafe.Pointer(&stack[len(stack)-1])) + 1) &^ 15
	pid = spawn(top, flags|syscall.CLONE_VM|syscall.CLONE_VFORK|uintptr(syscall.SIGCHLD), &b.ops[0], len(b.ops), &failed)
	runtime.KeepAlive(stack)
	runtime.KeepAlive(b.keep)
	return pid, failed
}

// childAttrs adds the calls that give the child a process group of its
// own (setpgid) and a parent-death signal, and then the caller's setup.
func (b *builder) childAttrs(setpgid bool, pdeathsig syscall.Signal, setup *Calls) error {
	if setpgid {
		b.Add("setpgid", syscall.SYS_SETPGID, 0, 0)
	}
	if pdeathsig != 0 {
		b.Add("prctl PR_SET_PDEATHSIG", syscall.SYS_PRCTL, prSetPdeath, uintptr(pdeathsig))
	}
	if setup != nil {
		return b.appendCalls(setup)
	}
	return nil
}

// placeFiles adds the calls that place n descriptors at 0 to n-1: each
// first copied above the ones to fill by the call copy(i) adds (a copy
// never takes a descriptor in use), then onto its place.
func (b *builder) placeFiles(n int, copy func(i int) int) {
	copies := make([]int, n)
	for i := range n {
		copies[i] = copy(i)
	}
	for i := range n {
		d := b.Add("dup3 to "+strconv.Itoa(i), syscall.SYS_DUP3, 0, uintptr(i), 0)
		b.UseResult(d, 0, copies[i])
	}
}

// failure is the CallError of the call failed names (index + 1 and
// -errno, as spawn writes them; past the list: its last call).
func (b *builder) failure(failed [2]int64) *CallError {
	i := int(failed[0]) - 1
	return &CallError{Call: b.names[min(max(i, 0), len(b.names)-1)], Err: syscall.Errno(-failed[1])}
}

// resetSignals adds the calls that put back to their default the
// signals this process handles (an exec would do it, but a signal let in
// before it would run a handler of Go's in the child); ignored ones stay
// ignored.
func (b *builder) resetSignals() {
	dfl := &sigaction{}
	b.keep = append(b.keep, dfl)
	for sig := uintptr(1); sig <= 64; sig++ {
		if sig == uintptr(syscall.SIGKILL) || sig == uintptr(syscall.SIGSTOP) {
			continue
		}
		var old sigaction
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, sig, 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0); errno != 0 {
			continue
		}
		if old.handler > 1 { // neither SIG_DFL (0) nor SIG_IGN (1)
			i := b.Add("rt_sigaction", syscall.SYS_RT_SIGACTION, sig, uintptr(unsafe.Pointer(dfl)), 0, 8)
			b.ops[i].optional = optionalAny
		}
	}
}

// setRlimits adds the calls that set the limits rl.
func (b *builder) setRlimits(rl []Rlimit) {
	for _, r := range rl {
		lim := &[2]uint64{r.Cur, r.Max}
		b.keep = append(b.keep, lim)
		b.Add("prlimit64 "+strconv.Itoa(r.Resource), syscall.SYS_PRLIMIT64, 0, uintptr(r.Resource), uintptr(unsafe.Pointer(lim)), 0)
	}
}

// CallError is a call of the child's that failed: the child has ended
// and no program started.
type CallError struct {
	Call string // the call's name
	Err  syscall.Errno
	Exec bool // the call was the exec of the program
}

func (e *CallError) Error() string { return "vspawn: " + e.Call + ": " + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// reap waits for the child pid to end.
func reap(pid int) {
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			return
		}
	}
}

// Start starts the program as Attr says and returns its pid. The calling
// goroutine must be locked to its thread when Pdeathsig is set, and the
// thread must outlive the child as long as that signal should wait.
func Start(a Attr) (int, error) {
	for _, s := range append(append([]string{a.Path, a.Dir}, a.Argv...), a.Env...) {
		if _, err := syscall.BytePtrFromString(s); err != nil {
			return 0, fmt.Errorf("vspawn: %w", err)
		}
	}
	var b builder
	// Room for the whole list at once: the setup's calls, the signals'
	// (up to 64), the descriptors' (two each) and a few more.
	setup := 0
	if a.Setup != nil {
		setup = a.Setup.Len()
	}
	b.Grow(setup + 64 + 2*len(a.Files) + len(a.Rlimits) + 24)
	outer, inner := a.Cloneflags, -1
	if a.JoinUser != nil {
		if a.Cloneflags&syscall.CLONE_NEWUSER != 0 {
			return 0, errors.New("vspawn: a user namespace is joined or made, not both")
		}
		outer = 0
		b.Add("setns user", sysSetns, a.JoinUser.Fd(), syscall.CLONE_NEWUSER)
		if a.JoinNet != nil {
			b.Add("setns net", sysSetns, a.JoinNet.Fd(), syscall.CLONE_NEWNET)
		}
		inner = b.Add("clone", syscall.SYS_CLONE, a.Cloneflags|syscall.CLONE_VM|syscall.CLONE_VFORK|syscall.CLONE_PARENT|uintptr(syscall.SIGCHLD))
		b.ops[inner].optional = optionalClone
	}
	if outer&syscall.CLONE_NEWUSER != 0 {
		b.writeFile("/proc/self/setgroups", "deny")
		b.writeFile("/proc/self/gid_map", "0 "+strconv.Itoa(a.GID)+" 1\n")
		b.writeFile("/proc/self/uid_map", "0 "+strconv.Itoa(a.UID)+" 1\n")
	}
	if err := b.childAttrs(a.Setpgid, a.Pdeathsig, a.Setup); err != nil {
		return 0, err
	}
	b.placeFiles(len(a.Files), func(i int) int {
		return b.Add("dup "+strconv.Itoa(int(a.Files[i])), syscall.SYS_FCNTL, a.Files[i], fDupfdCloexc, uintptr(max(len(a.Files), 3)))
	})
	// Nothing else of the caller's: a descriptor it inherited open
	// across exec would be the program's too. (Where the kernel cannot
	// mark them, only the caller's close-on-exec ones close.)
	others := b.Add("close_range", sysCloseRange, uintptr(max(len(a.Files), 3)), ^uintptr(0), closeRangeCloexec)
	b.ops[others].optional = optionalAny
	if a.Dir != "" {
		b.Add("chdir "+a.Dir, syscall.SYS_CHDIR, b.String(a.Dir))
	}
	b.resetSignals()
	b.setRlimits(a.Rlimits)
	mask, restore, err := blockSignals()
	if err != nil {
		return 0, err
	}
	defer restore()
	b.Add("rt_sigprocmask", syscall.SYS_RT_SIGPROCMASK, sigSetMask, uintptr(unsafe.Pointer(mask)), 0, 8)
	b.Add("execve "+a.Path, syscall.SYS_EXECVE, b.String(a.Path), b.cstrs(a.Argv), b.cstrs(a.Env))
	pid, failed := b.run(outer)
	if pid < 0 {
		return 0, &CloneError{Err: syscall.Errno(-pid)}
	}
	if inner >= 0 {
		// The first child has exited (its clone's child was executed,
		// or failed): the program, if any, is the second.
		reap(int(pid))
		pid = b.ops[inner].res
		if pid <= 0 && failed[0] == 0 {
			failed = [2]int64{int64(inner) + 1, pid}
		}
	}
	if failed[0] != 0 {
		if pid > 0 {
			reap(int(pid))
		}
		i := int(failed[0]) - 1
		name := "execve " + a.Path
		if i < len(b.names) {
			name = b.names[i]
		}
		return 0, &CallError{Call: name, Err: syscall.Errno(-failed[1]), Exec: i >= len(b.names)-1}
	}
	return int(pid), nil
}

// Namespaces makes a user namespace in which uid and gid are 0 (setgroups
// denied) and a network namespace it owns, and returns both, for Start
// to join (Attr.JoinUser, JoinNet): made ahead, on another thread, while
// the caller does other work. A child that shares this process's memory
// makes them, writes its id maps, makes setup's calls (nil: none) as
// their root, opens both and sends them back over a socket; it runs only
// system calls, and ends.
func Namespaces(uid, gid int, setup *Calls) (user, net *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("vspawn: socketpair: %w", err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	var b builder
	b.writeFile("/proc/self/setgroups", "deny")
	b.writeFile("/proc/self/gid_map", "0 "+strconv.Itoa(gid)+" 1\n")
	b.writeFile("/proc/self/uid_map", "0 "+strconv.Itoa(uid)+" 1\n")
	if setup != nil {
		if err := b.appendCalls(setup); err != nil {
			return nil, nil, err
		}
	}
	var opens []int
	for _, ns := range []string{"user", "net"} {
		opens = append(opens, b.Add("open "+ns, syscall.SYS_OPEN, b.String("/proc/self/ns/"+ns), syscall.O_RDONLY|syscall.O_CLOEXEC))
	}
	b.sendResults(fds[1], opens)
	b.Add("exit", syscall.SYS_EXIT, 0)

	_, restore, err := blockSignals()
	if err != nil {
		return nil, nil, err
	}
	pid, failed := b.run(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET)
	restore()
	if pid < 0 {
		return nil, nil, &CloneError{Err: syscall.Errno(-pid)}
	}
	reap(int(pid))
	if failed[0] != 0 {
		return nil, nil, b.failure(failed)
	}
	got, err := receiveDescriptors(fds[0], 2, "the namespaces")
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(got[0]), "user namespace"), os.NewFile(uintptr(got[1]), "network namespace"), nil
}

// MountNamespace makes a mount namespace owned by the user namespace
// user (one Namespaces made, or a program's that this process's user
// owns) and returns it: a child that shares this process's memory joins
// user, clones a child in new mount and PID namespaces (PID 1 there, so
// that it can mount a procfs), which makes setup's calls, opens its
// mount namespace and sends it back over a socket, and ends. Nothing is
// executed.
func MountNamespace(user *os.File, setup *Calls) (*os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("vspawn: socketpair: %w", err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	var b builder
	b.Add("setns user", sysSetns, user.Fd(), syscall.CLONE_NEWUSER)
	inner := b.Add("clone", syscall.SYS_CLONE, syscall.CLONE_NEWNS|syscall.CLONE_NEWPID|syscall.CLONE_VM|syscall.CLONE_VFORK|syscall.CLONE_PARENT|uintptr(syscall.SIGCHLD))
	b.ops[inner].optional = optionalClone
	if err := b.appendCalls(setup); err != nil {
		return nil, err
	}
	open := b.Add("open the mount namespace", syscall.SYS_OPEN, b.String("/proc/thread-self/ns/mnt"), syscall.O_RDONLY|syscall.O_CLOEXEC)
	b.sendResults(fds[1], []int{open})
	b.Add("exit", syscall.SYS_EXIT, 0)

	_, restore, err := blockSignals()
	if err != nil {
		return nil, err
	}
	pid, failed := b.run(0)
	restore()
	if pid < 0 {
		return nil, &CloneError{Err: syscall.Errno(-pid)}
	}
	// The first child has ended once the second did (or could not be
	// made); both are this process's children.
	reap(int(pid))
	if second := b.ops[inner].res; second > 0 {
		reap(int(second))
	} else if failed[0] == 0 {
		failed = [2]int64{int64(inner) + 1, second}
	}
	if failed[0] != 0 {
		return nil, b.failure(failed)
	}
	got, err := receiveDescriptors(fds[0], 1, "the mount namespace")
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(got[0]), "mount namespace"), nil
}

// sendResults adds the calls that send the descriptors the calls opens
// returned over the socket sock, in one message.
func (b *builder) sendResults(sock int, opens []int) {
	msg, fds := b.rightsMessage(len(opens))
	for i, open := range opens {
		b.StoreResult(&fds[i], open)
	}
	b.Add("sendmsg", syscall.SYS_SENDMSG, uintptr(sock), uintptr(unsafe.Pointer(msg)), 0)
}

// rightsMessage is a message of one byte carrying n descriptors, which a
// call sends or receives: fds are where they are written, kept with b.
func (b *builder) rightsMessage(n int) (msg *syscall.Msghdr, fds []int32) {
	rights := syscall.UnixRights(make([]int, n)...)
	fds = unsafe.Slice((*int32)(unsafe.Pointer(&rights[syscall.CmsgLen(0)])), n)
	one := []byte{1}
	iov := &syscall.Iovec{Base: &one[0], Len: 1}
	msg = &syscall.Msghdr{Iov: iov, Iovlen: 1, Control: &rights[0]}
	msg.SetControllen(len(rights))
	b.Keep(rights)
	b.Keep(one)
	b.Keep(iov)
	b.Keep(msg)
	return msg, fds
}

// receiveDescriptors receives the n descriptors a child sent over sock
// (see sendResults).
func receiveDescriptors(sock, n int, what string) ([]int, error) {
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4*n))
	_, oobn, _, _, err := syscall.Recvmsg(sock, buf, oob, syscall.MSG_DONTWAIT|syscall.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("vspawn: receive %s: %w", what, err)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("vspawn: receive %s: %v", what, err)
	}
	got, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(got) != n {
		for _, fd := range got {
			syscall.Close(fd)
		}
		return nil, fmt.Errorf("vspawn: receive %s: %d descriptors, %v", what, len(got), err)
	}
	return got, nil
}
