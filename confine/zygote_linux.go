//go:build linux

package confine

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Without root, where programs cannot start directly (see
// directstart_linux.go; where they can, a box keeps a template of its
// mount namespace instead: template_linux.go), every program starts as a
// helper (see helper_linux.go), which pays a second start of the vtexec
// binary and a fresh root before the program's own start: most of an
// unprivileged run. A box therefore keeps one helper started ahead for
// the next program, for git and for the others: a zygote. It is built from the box's spec alone
// (namespaces, the fresh root, Landlock, the syscall filter: nothing that
// depends on the program), then waits on a socket for the one program it
// becomes — its path, argv, environment and directory, and its standard
// streams as descriptors — sets the resource limits and execs it. Each
// zygote serves one program and is never reused, so its writable tmpfs
// (the box's /dev/shm) is new for every program as before.
//
// A zygote is used only while the box's world is as it was when the
// zygote was started: SpecKey, which names the identity of every path the
// box binds or protects, must be unchanged (a protected name made in the
// meantime has no read-only bind in the zygote's root). A program granted
// the network, one given descriptors beyond its three streams or streams
// that are not files, starts as before.

// zygotesUsed counts programs started by a zygote, for tests.
var zygotesUsed atomic.Int64

// zygoteFD is where the helper finds its end of the control socket.
const zygoteFD = 3

// zygoteRequest is what a zygote is told to run.
type zygoteRequest struct {
	Program string   `json:"program"`
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
}

// zygote is a helper started ahead, waiting for its program.
type zygote struct {
	key    string
	cmd    *exec.Cmd
	ctl    *os.File         // vtexec's end of the control socket
	ready  chan struct{}    // closed once the zygote is confined and waits (or failed)
	err    error            // why it is not, set before ready closes
	assign chan *boxProcess // what it became; nil: kill it
	// now ends the wait before the start (see zygoteDelay); dropped says
	// it will not be used.
	now     chan struct{}
	nowOnce sync.Once
	dropped atomic.Bool
}

// zygoteDelay is how long after KeepReady a zygote starts: the run that
// asked for it has ended, and its answer is on its way. Starting a
// process forks vtexec, and until the child execs, every page vtexec
// writes costs a fault: not while the answer is written. A program that
// comes sooner takes the zygote at once.
const zygoteDelay = time.Millisecond

// zygoteQuiet is how long no request may have begun or ended before a
// zygote starts: its start costs a CPU for some milliseconds, which a
// request being served (a shell_check right after a shell call) must not
// lose. An agent's calls come a model's turn apart; calls back to back
// wait for a quiet moment, or take their helper's start themselves.
const zygoteQuiet = 3 * time.Millisecond

// lastRequest is when a request last began or ended (unix nanoseconds;
// see NoteRequest).
var lastRequest atomic.Int64

// NoteRequest tells the box that a request begins or ends: a helper
// started ahead waits for a quiet moment after it. The end counts as
// much as the beginning: a shell call that ran longer than the quiet
// moment would otherwise let the helper start just as the next call
// comes.
func NoteRequest() { lastRequest.Store(time.Now().UnixNano()) }

// LastRequest is when NoteRequest was last called.
func LastRequest() time.Time { return time.Unix(0, lastRequest.Load()) }

// waitQuiet waits until no request has begun for zygoteQuiet, or until
// now is closed (a program needs the zygote).
func waitQuiet(now <-chan struct{}) {
	for {
		since := time.Since(time.Unix(0, lastRequest.Load()))
		if since >= zygoteQuiet {
			return
		}
		t := time.NewTimer(zygoteQuiet - since)
		select {
		case <-t.C:
		case <-now:
			t.Stop()
			return
		}
	}
}

// startNow ends the zygote's wait before its start.
func (z *zygote) startNow() { z.nowOnce.Do(func() { close(z.now) }) }

// ahead holds what a box prepared ahead for its next programs (helpers
// started ahead, threads that entered it): [0] for programs but git, [1]
// for git.
type ahead[T any] struct {
	mu     sync.Mutex
	ready  [2]*T
	closed bool
}

func zygoteSlot(git bool) int {
	if git {
		return 1
	}
	return 0
}

// fill prepares one for git (or the others) with prepare, unless one is
// there or the box is closed.
func (a *ahead[T]) fill(git bool, prepare func() (*T, error)) {
	i := zygoteSlot(git)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.ready[i] != nil {
		return
	}
	if t, err := prepare(); err == nil {
		a.ready[i] = t
	}
}

// take returns what was prepared for git (or the others), or nil, and
// leaves its place empty.
func (a *ahead[T]) take(git bool) *T {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.ready[zygoteSlot(git)]
	a.ready[zygoteSlot(git)] = nil
	return t
}

// close empties both places, from then on kept empty, and returns what
// they held.
func (a *ahead[T]) close() []*T {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	var held []*T
	for i, t := range a.ready {
		if t != nil {
			held = append(held, t)
		}
		a.ready[i] = nil
	}
	return held
}

// takeZygote returns the box's ready zygote for git (or the others) if
// the box's world is unchanged since it started, else nil. Where
// programs start directly, a zygote that has not finished its start is
// not waited for: a direct start is sooner.
func (b *Box) takeZygote(git bool) *zygote {
	z := b.zyg.take(git)
	if z != nil && (z.key != SpecKey(b.spec, b.mode) || directStart && !z.isReady()) {
		z.discard()
		return nil
	}
	if z != nil {
		z.startNow()
	}
	return z
}

// KeepReady prepares, in the background, the box's next program but git
// (or git's), for a long-lived caller. Without root, where programs
// start directly it makes the box's mount namespace for them to copy
// (see template_linux.go; a copy starts sooner than a helper started
// ahead, which pays its exec of a Go program and, ahead, a CPU for some
// milliseconds), elsewhere it starts a helper unless one is ready, whose
// start the next program then skips. As root a thread enters the box
// for it instead (see ready_linux.go); with neither root nor user
// namespaces it does nothing.
func (b *Box) KeepReady(git bool) {
	if b.mode == ModeOff {
		return
	}
	if b.root {
		if !b.keepParkedRoot(git) {
			b.keepThreadReady(git)
		}
		return
	}
	if b.userns && directStart {
		b.keepTemplate(git)
	} else if b.userns {
		b.zyg.fill(git, func() (*zygote, error) { return b.startZygote(git) })
	}
}

// startZygote starts a zygote for git (or the others).
func (b *Box) startZygote(git bool) (*zygote, error) {
	parent, child, err := socketPair()
	if err != nil {
		return nil, err
	}
	hs := b.specFor(git, false)
	hs.Zygote = true
	c := &cmdLike{path: "/", args: []string{"zygote"}}
	if err := asHelper(c, hs); err != nil {
		parent.Close()
		child.Close()
		return nil, err
	}
	z := &zygote{key: SpecKey(b.spec, b.mode), ctl: parent, ready: make(chan struct{}), assign: make(chan *boxProcess, 1), now: make(chan struct{})}
	z.cmd = &exec.Cmd{Path: c.path, Args: c.args, Env: c.env, Dir: "/", ExtraFiles: []*os.File{child}}
	z.cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
		Setpgid:                    true,
	}
	go func() {
		timer := time.NewTimer(zygoteDelay)
		select {
		case <-timer.C:
			waitQuiet(z.now)
		case <-z.now:
			timer.Stop()
		}
		if z.dropped.Load() {
			child.Close()
			z.err = errors.New("confine: the helper started ahead was not needed")
			close(z.ready)
			return
		}
		// The zygote dies with this thread (Pdeathsig): it stays locked
		// until the zygote, or the program it became, has been waited for.
		runtime.LockOSThread()
		z.err = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
		if z.err == nil {
			z.err = b.startInUserNS(z.cmd, false, nil, nil)
		}
		child.Close()
		if z.err == nil {
			z.err = z.waitSetUp()
		}
		close(z.ready)
		if z.err != nil && z.cmd.Process == nil {
			return
		}
		p := <-z.assign
		if p == nil {
			z.cmd.Process.Kill()
			z.cmd.Wait()
			return
		}
		untilExited(z.cmd.Process.Pid)
		p.err = z.cmd.Wait()
		close(p.done)
	}()
	return z, nil
}

// zygoteSetUp is the byte a zygote writes once it is confined and waits
// for its program (a NUL, which no message starts with); anything else it
// writes is why it failed.
const zygoteSetUp = 0

// waitSetUp waits until the zygote is confined and waits for its
// program, or has failed.
func (z *zygote) waitSetUp() error {
	var b [1]byte
	if n, _ := z.ctl.Read(b[:]); n == 1 && b[0] == zygoteSetUp {
		return nil
	} else if n == 1 {
		rest, _ := io.ReadAll(z.ctl)
		return fmt.Errorf("confine: %s%s", b[:], rest)
	}
	return errors.New("confine: the helper started ahead ended")
}

// isReady reports whether the zygote has finished its start.
func (z *zygote) isReady() bool {
	select {
	case <-z.ready:
		return true
	default:
		return false
	}
}

// discard kills a zygote that will not be used, or keeps it from
// starting.
func (z *zygote) discard() {
	z.dropped.Store(true)
	z.startNow()
	z.ctl.Close()
	z.assign <- nil
}

// launch makes the zygote run cmd: its program, argv, environment and
// directory, with its standard streams, which must be files or nil. It
// returns once the program has been executed.
func (z *zygote) launch(cmd *exec.Cmd) (*boxProcess, error) {
	<-z.ready
	if z.err != nil {
		z.discard()
		return nil, z.err
	}
	streams, closeOpened, err := streamFiles(cmd)
	if err != nil {
		z.discard()
		return nil, err
	}
	defer closeOpened()
	req, err := json.Marshal(zygoteRequest{Program: cmd.Path, Argv: cmd.Args, Env: cmd.Env, Dir: cmd.Dir})
	if err != nil {
		z.discard()
		return nil, err
	}
	fds := make([]int, len(streams))
	for i, f := range streams {
		fds[i] = int(f.Fd())
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(req)))
	if err := unix.Sendmsg(int(z.ctl.Fd()), n[:], unix.UnixRights(fds...), nil, 0); err != nil {
		z.discard()
		return nil, fmt.Errorf("confine: zygote: %w", err)
	}
	if _, err := z.ctl.Write(req); err != nil {
		z.discard()
		return nil, fmt.Errorf("confine: zygote: %w", err)
	}
	// The zygote's end closes when it execs the program (close-on-exec);
	// what it could not do before that, it writes back.
	msg, _ := io.ReadAll(z.ctl)
	z.ctl.Close()
	p := &boxProcess{cmd: z.cmd, done: make(chan struct{})}
	z.assign <- p
	if len(msg) > 0 {
		<-p.done
		return nil, fmt.Errorf("confine: %s", msg)
	}
	return p, nil
}

// streamFiles returns cmd's standard streams as files (/dev/null for a
// nil one) and what closes the ones it opened, or an error if a stream
// is not a file.
func streamFiles(cmd *exec.Cmd) ([]*os.File, func(), error) {
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	var out []*os.File
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		switch f := s.(type) {
		case *os.File:
			out = append(out, f)
		case nil:
			flag := os.O_RDONLY
			if i > 0 {
				flag = os.O_WRONLY
			}
			null, err := os.OpenFile(os.DevNull, flag, 0)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			opened = append(opened, null)
			out = append(out, null)
		default:
			closeAll()
			return nil, nil, errors.New("a stream that is not a file")
		}
	}
	return out, closeAll, nil
}

// fitsAhead reports whether cmd may start from what a box prepared
// ahead (a zygote, a parked child): three streams that are files (or
// none), nothing more to pass, no network, no attributes of its own, a
// directory.
func fitsAhead(cmd *exec.Cmd, network bool) bool {
	if network || len(cmd.ExtraFiles) > 0 || cmd.SysProcAttr != nil || cmd.Dir == "" {
		return false
	}
	for _, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := s.(*os.File); !ok && s != nil {
			return false
		}
	}
	return true
}

// closeZygotes discards the box's ready zygotes; no more are started.
func (b *Box) closeZygotes() {
	for _, z := range b.zyg.close() {
		z.discard()
	}
}

func socketPair() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote"), nil
}

// zygoteReceive, in the zygote, waits for its program: it reads the
// request, puts the streams it came with at 0, 1 and 2, and returns it.
// Its errors are written back to vtexec, which then reports them.
func zygoteReceive() (zygoteRequest, error) {
	var req zygoteRequest
	var n [4]byte
	oob := make([]byte, unix.CmsgSpace(3*4))
	nr, noob, _, _, err := unix.Recvmsg(zygoteFD, n[:], oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || nr != 4 {
		return req, fmt.Errorf("read the request: %v", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:noob])
	if err != nil || len(msgs) != 1 {
		return req, errors.New("the request came without its streams")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 3 {
		return req, errors.New("the request came without its three streams")
	}
	body := make([]byte, binary.LittleEndian.Uint32(n[:]))
	for got := 0; got < len(body); {
		k, err := unix.Read(zygoteFD, body[got:])
		if err != nil || k == 0 {
			return req, fmt.Errorf("read the request: %v", err)
		}
		got += k
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, err
	}
	for i, fd := range fds {
		if err := unix.Dup3(fd, i, 0); err != nil {
			return req, err
		}
		unix.Close(fd)
	}
	return req, nil
}
