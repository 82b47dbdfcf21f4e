//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/early"
	"github.com/vtexec/vtexec/internal/vspawn"
)

// startInUserNS starts cmd, which enter (or startZygote) set up to start
// as the helper in new user, mount, PID, IPC and network namespaces. Go's
// os/exec copies vtexec's page tables for such a child, whose parent
// must write its id maps; vspawn shares vtexec's memory with it instead
// and lets the child map its own ids (a fresh unprivileged run 0.6–1.3 ms
// faster, and no fault on vtexec's pages until the helper has executed).
// Where vspawn is not available, or a stream is not a file, os/exec
// starts it.
//
// The box's helpers but those granted the network share one user and
// one network namespace, as root's programs share the workspace's
// network namespace: the first helper's, kept once it has started, which
// the later ones join before they make their mount, PID and IPC
// namespaces. A network namespace costs its creation and, when its last
// process ends, a teardown in a kernel worker (0.9 ms of a CPU per
// program, measured); a shared loopback also lets a command reach the
// test server an earlier command of the box left running, as root.
//
// exited, for a direct start, is closed once the program has exited (a
// parked child's thread waits for it: park_linux.go).
func (b *Box) startInUserNS(cmd *exec.Cmd, network bool, direct *helperSpec, exited <-chan struct{}) error {
	// osExec starts cmd with os/exec, as the helper.
	osExec := func() error {
		if direct != nil {
			if err := startAsHelper(cmd, *direct); err != nil {
				return err
			}
		}
		return cmd.Start()
	}
	attr := cmd.SysProcAttr
	if !vspawn.Available || attr == nil || len(attr.UidMappings) != 1 || len(attr.GidMappings) != 1 || attr.GidMappingsEnableSetgroups ||
		attr.UidMappings[0].ContainerID != 0 || attr.GidMappings[0].ContainerID != 0 || attr.UidMappings[0].Size != 1 || attr.GidMappings[0].Size != 1 ||
		attr.Pgid != 0 || attr.Setsid || attr.Setctty || attr.Foreground || attr.Credential != nil || attr.Unshareflags != 0 || attr.Chroot != "" {
		return osExec()
	}
	for _, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := s.(*os.File); !ok && s != nil {
			return osExec()
		}
	}
	dir := cmd.Dir
	if direct != nil {
		// The child's directory is entered after its new root: an
		// absolute path, there as here.
		if !filepath.IsAbs(dir) {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			dir = filepath.Join(wd, dir)
		}
		if cmd.Err != nil {
			return cmd.Err // as cmd.Start would
		}
	}
	streams, closeOpened, err := streamFiles(cmd)
	if err != nil {
		return err
	}
	defer closeOpened()
	files := make([]uintptr, 0, 3+len(cmd.ExtraFiles))
	for _, f := range append(streams, cmd.ExtraFiles...) {
		files = append(files, f.Fd())
	}
	a := vspawn.Attr{
		Path: cmd.Path, Argv: cmd.Args, Env: cmd.Environ(), Dir: dir, Files: files,
		Cloneflags: attr.Cloneflags, UID: attr.UidMappings[0].HostID, GID: attr.GidMappings[0].HostID,
		Setpgid: attr.Setpgid, Pdeathsig: attr.Pdeathsig,
	}
	if direct != nil && !network {
		b.useKeeper(direct.Git) // a fresh process's: the keeper's namespaces and template
	}
	// A box without a template plans the child's calls while the
	// namespaces made ahead may still be in the making (they do not
	// change the plan).
	var planned *directPlan
	if direct != nil && !network && !b.hasTemplate(direct.Git) {
		planned = &directPlan{}
		planned.setup, planned.limits, planned.done, planned.err = directSetup(*direct)
		defer planned.discard()
	}
	if !network {
		b.adoptPreparedNamespaces()
	}
	// Held until the helper is in them: closing the box waits.
	b.shared.mu.RLock()
	joined := !network && b.shared.user != nil
	var fromTemplate, fromParked bool
	var pid int
	if direct != nil {
		var t *mountTemplate
		var links map[string]bool
		if joined {
			t = b.templateFor(direct.Git)
		}
		if t != nil {
			if links, err = direct.box().linkTargets(); err == nil {
				pid, fromParked, err = b.startParked(a, *direct, t, links, exited)
			}
		}
		var done func()
		switch {
		case err != nil || fromParked:
		case t != nil:
			// The mount namespace is a copy of the template, not a new one.
			a.Setup, a.Rlimits, done, err = directSetupInTemplate(*direct, t, links)
			a.Cloneflags &^= unix.CLONE_NEWNS
			fromTemplate = true
		case planned != nil:
			a.Setup, a.Rlimits, err = planned.setup, planned.limits, planned.err
		default:
			a.Setup, a.Rlimits, done, err = directSetup(*direct)
		}
		if err != nil && !fromParked {
			b.shared.mu.RUnlock()
			return err
		}
		if done != nil {
			defer done()
		}
	}
	if !fromParked {
		if joined {
			a.JoinUser, a.JoinNet = b.shared.user, b.shared.net
			a.Cloneflags &^= unix.CLONE_NEWUSER | unix.CLONE_NEWNET
		}
		pid, err = vspawn.Start(a)
	}
	b.shared.mu.RUnlock()
	runtime.KeepAlive(cmd)
	runtime.KeepAlive(streams)
	var refused *vspawn.CloneError
	if errors.As(err, &refused) && !joined {
		return osExec() // a kernel that refuses this clone: os/exec's
	}
	if direct != nil {
		err = startError(cmd, err)
	}
	if err != nil {
		return err
	}
	if cmd.Process, err = os.FindProcess(pid); err != nil {
		return err
	}
	keepMountNamespace(pid, exited)
	if !network && !joined {
		b.keepNamespaces(pid)
	}
	if direct != nil {
		directStarts.Add(1)
	}
	if fromTemplate {
		templateStarts.Add(1)
	}
	if direct != nil && !network && !fromTemplate && !fromParked {
		b.noteKeeperMissed(direct.Git)
	}
	if fromParked {
		parkedStarts.Add(1)
	}
	return nil
}

// directPlan is a direct start's calls made ahead (see directSetup).
type directPlan struct {
	setup  *vspawn.Calls
	limits []vspawn.Rlimit
	done   func()
	err    error
}

// discard closes what the plan opened, used or not.
func (p *directPlan) discard() {
	if p.done != nil {
		p.done()
	}
}

// hasTemplate reports whether the box has a template for git (or the
// others) that may serve.
func (b *Box) hasTemplate(git bool) bool {
	b.shared.mu.RLock()
	defer b.shared.mu.RUnlock()
	return b.liveTemplate(git) != nil
}

// startError is err, a direct start's, as os/exec would say it: a
// program that could not be executed is a PathError, another call of
// the child's that failed is named.
func startError(cmd *exec.Cmd, err error) error {
	var failed *vspawn.CallError
	if !errors.As(err, &failed) {
		return err
	}
	if failed.Exec {
		return &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: failed.Err}
	}
	return fmt.Errorf("confine: %s: %w", failed.Call, failed.Err)
}

// keepNamespaces keeps the user and network namespaces of pid, a helper
// just started (not yet waited for, so the pid is still its), for the
// box's later helpers, unless some are kept already.
func (b *Box) keepNamespaces(pid int) {
	b.shared.mu.Lock()
	defer b.shared.mu.Unlock()
	if b.shared.user != nil || b.shared.closed {
		return
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/ns/"
	user, err := os.Open(dir + "user")
	if err != nil {
		return // it has ended already
	}
	net, err := os.Open(dir + "net")
	if err != nil {
		user.Close()
		return
	}
	b.shared.user, b.shared.net = user, net
}

// preparedNS are the user and network namespaces PrepareNamespaces
// makes ahead, for the first box that starts a program without root.
var preparedNS struct {
	once  sync.Once
	work  *early.Work[madeNamespaces] // nil until PrepareNamespaces
	taken atomic.Bool
	// keeper is what the workspace's keeper gave (nil: no keeper to
	// ask); keeperDone once a box handed it what it missed.
	keeper     *early.Work[keeperDialed]
	keeperDone atomic.Bool
	// rootKnown is closed once the workspace is (prepareNamespaces),
	// keeper set before.
	rootKnown chan struct{}
	rootSet   atomic.Bool
}

// madeNamespaces are a user namespace and a network namespace it owns
// (nil if they could not be made).
type madeNamespaces struct{ user, net *os.File }

// adoptPreparedNamespaces makes the namespaces made ahead the box's
// shared ones, if it has none and they are not another box's. Not begun
// yet, they never will be: the program's child makes its own.
func (b *Box) adoptPreparedNamespaces() {
	if preparedNS.work == nil || preparedNS.taken.Load() {
		return
	}
	rootUnknown()
	b.shared.mu.Lock()
	defer b.shared.mu.Unlock()
	if b.shared.user != nil || b.shared.closed || !preparedNS.taken.CompareAndSwap(false, true) {
		return
	}
	if m, begun := preparedNS.work.Begun(); begun && m.user != nil {
		b.shared.user, b.shared.net = m.user, m.net
	}
}

// dropNamespaces lets the shared namespaces go (see keepNamespaces);
// later helpers make their own.
func (b *Box) dropNamespaces() {
	b.shared.mu.Lock()
	defer b.shared.mu.Unlock()
	b.shared.closed = true
	b.closeTemplates()
	if b.shared.user != nil {
		b.shared.user.Close()
		b.shared.net.Close()
		b.shared.user, b.shared.net = nil, nil
	}
}

// leaveAtExit, when set, takes the mount namespaces kept past their
// programs' exit (see keepMountNamespace) to let them go once this
// process has exited; false: it could not take one.
var leaveAtExit atomic.Pointer[func(*os.File) bool]

// LeaveNamespacesAtExit has leave (exithold.CloseAfterExit, in a process
// that answers one request and exits) take the mount namespaces kept
// past their programs' exit, instead of letting each go once its program
// has exited.
func LeaveNamespacesAtExit(leave func(*os.File) bool) { leaveAtExit.Store(&leave) }

// keepMountNamespace holds the mount namespace of pid, a program just
// started without root, past the program's exit. Its last holder tears
// it down, which waits for an RCU grace period (0.2-0.4 ms here), and a
// program that is the last makes whoever waits for it wait for that too:
// as root, the thread that started it holds it. The namespace is let go
// once exited is closed, on a goroutine of its own, or by leaveAtExit. A
// program that has ended already is past helping.
func keepMountNamespace(pid int, exited <-chan struct{}) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/ns/mnt")
	if err != nil {
		return
	}
	if leave := leaveAtExit.Load(); leave != nil && (*leave)(f) {
		return
	}
	go func() {
		<-exited
		f.Close()
	}()
}
