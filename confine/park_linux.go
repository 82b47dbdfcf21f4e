//go:build linux

package confine

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/vspawn"
)

// A server's next program starts ahead as far as it can: once a template
// serves (template_linux.go), a child is parked in a copy of it
// (vspawn.Park), with PID and IPC namespaces, a procfs and a /dev/shm of
// its own, confined as a program started from the template is, waiting
// for its program. The box's next program that fits (not granted the
// network, three descriptors) takes it while the template serves and the
// links it bound are the links there are; it then only places its
// descriptors, enters its directory and executes the program. Nothing
// runs in the child before the program: the places it could write (its
// /dev/shm, its IPC namespace) are as empty as a fresh start's.

// parkedChild is a child parked for the box's next program: without
// root in a copy of the template t, as root by a thread that entered
// the box.
type parkedChild struct {
	p     *vspawn.Parked
	t     *mountTemplate  // without root
	links map[string]bool // linkTargets when it was made (without root)
	// release takes, once the child was started or dropped, what its
	// thread waits for before it ends (its end kills the child and the
	// program: the parent-death signal): the program's exit, or nil.
	release chan (<-chan struct{})
	group   *Group // as root: the cgroups it was born in
}

// parkedCloneflags are the namespaces a program from a template makes.
const parkedCloneflags = unix.CLONE_NEWPID | unix.CLONE_NEWIPC

// parkAhead is whether a box parks children (tests turn it off to
// compare with a start from the template).
var parkAhead = vspawn.Available

// parkedStarts counts programs that took a parked child, for tests.
var parkedStarts atomic.Int64

// keepParkedLocked parks a child for git (or the others) in the
// background unless one is parked or being parked; the caller holds
// b.shared.mu.
func (b *Box) keepParkedLocked(git bool) {
	i := zygoteSlot(git)
	t := b.shared.templates[i]
	if !parkAhead || b.shared.closed || b.shared.user == nil || t == nil || t.stale.Load() ||
		b.shared.parked[i].Load() != nil || !b.shared.parking[i].CompareAndSwap(false, true) {
		return
	}
	go b.park(git, t)
}

// park makes the child for git (or the others) in a copy of t, keeps it
// for the box's next program, and keeps its thread until that program
// has exited or the child is dropped.
func (b *Box) park(git bool, t *mountTemplate) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	i := zygoteSlot(git)
	pc := &parkedChild{t: t, release: make(chan (<-chan struct{}), 1)}
	err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) // as enter's thread
	b.shared.mu.RLock()
	if err == nil && !b.shared.closed && b.shared.user != nil {
		hs := b.specFor(git, false)
		if pc.links, err = hs.box().linkTargets(); err == nil {
			setup, limits, done, err := directSetupInTemplate(hs, t, pc.links)
			if err == nil {
				pc.p, _ = vspawn.Park(vspawn.ParkAttr{Cloneflags: parkedCloneflags, JoinUser: b.shared.user, JoinNet: b.shared.net,
					Setpgid: true, Pdeathsig: syscall.SIGKILL, Setup: setup, Rlimits: limits, Files: 3})
				done() // the child has its own copies
			}
		}
	}
	b.shared.mu.RUnlock()
	b.holdParked(i, pc, func() bool { return !t.stale.Load() && b.shared.templates[i] == t })
}

// holdParked makes pc, just parked (or not: pc.p nil), the box's parked
// child i if the box is open and wanted says it still serves (asked
// under b.shared.mu), and then holds the calling, locked
// thread, whose end would kill the child and its program, until the
// program has exited or the child is dropped; one not kept is
// discarded.
func (b *Box) holdParked(i int, pc *parkedChild, wanted func() bool) {
	b.shared.mu.Lock()
	keep := pc.p != nil && !b.shared.closed && wanted()
	if keep {
		b.shared.parked[i].Store(pc)
	}
	b.shared.parking[i].Store(false)
	b.shared.mu.Unlock()
	if !keep {
		if pc.p != nil {
			pc.p.Discard()
		}
		return
	}
	if exited := <-pc.release; exited != nil {
		<-exited
	}
}

// drop ends a parked child not started, and its thread.
func (pc *parkedChild) drop() {
	pc.p.Discard()
	pc.release <- nil
}

// startParked starts the program of a, a direct start from the template
// t (hs; links: linkTargets now; exited: closed once the program has
// exited), in the child parked for it, if there is one that fits; used
// says whether it did, err how the program's start went then. The
// caller read-holds b.shared.mu.
func (b *Box) startParked(a vspawn.Attr, hs helperSpec, t *mountTemplate, links map[string]bool, exited <-chan struct{}) (pid int, used bool, err error) {
	if len(a.Files) != 3 || a.Cloneflags&^(unix.CLONE_NEWUSER|unix.CLONE_NEWNET|unix.CLONE_NEWNS) != parkedCloneflags ||
		!a.Setpgid || a.Pdeathsig != syscall.SIGKILL || hs.NetReady != 0 || hs.Zygote || hs.Spec.Network || exited == nil {
		return 0, false, nil
	}
	pc := b.shared.parked[zygoteSlot(hs.Git)].Swap(nil)
	if pc == nil {
		return 0, false, nil
	}
	if pc.t != t || t.stale.Load() || !maps.Equal(pc.links, links) {
		pc.drop()
		return 0, false, nil
	}
	pid, err = pc.p.Start(a.Path, a.Argv, a.Env, a.Dir, a.Files)
	if errors.Is(err, vspawn.ErrNotParked) {
		pc.drop()
		return 0, false, nil
	}
	if err != nil {
		pc.release <- nil
		return 0, true, err
	}
	pc.release <- exited
	return pid, true, nil
}

// discardParked drops the box's parked children; the caller holds
// b.shared.mu.
func (b *Box) discardParked() {
	for i := range b.shared.parked {
		if pc := b.shared.parked[i].Swap(nil); pc != nil {
			pc.drop()
		}
	}
}

// As root a server parks the next program's child too, made from a
// locked thread that first enters the box as a thread entered ahead does
// (ready_linux.go): a copy of the box's mount namespace with a /dev/shm
// of its own, the box's network namespace, the bounding set dropped,
// Landlock; and, with cgroup v1, joined to the box's cgroups, so that its
// children are born in them. The child makes PID and IPC namespaces of
// its own, installs the syscall filter, sets the limits and waits; the
// thread stays until the program has exited (the parent-death signal).
// The copy of the mount namespace is the thread's and the program's
// alone, as a thread entered ahead serves one program. With cgroup v2 a
// program is born in a cgroup only through clone3, and a thread enters
// ahead instead.

// keepParkedRoot parks a child for git (or the others) as root unless one
// is parked or being parked, and says whether children are parked here
// (otherwise the caller keeps a thread ready).
func (b *Box) keepParkedRoot(git bool) bool {
	if !parkAhead || b.rootParkFailed.Load() || b.cgroupsV2() {
		return false
	}
	i := zygoteSlot(git)
	b.shared.mu.Lock()
	defer b.shared.mu.Unlock()
	if !b.shared.closed && b.shared.parked[i].Load() == nil && b.shared.parking[i].CompareAndSwap(false, true) {
		go b.parkRoot(git)
	}
	return true
}

// cgroupsV2 reports whether one of the box's cgroups is cgroup v2.
func (b *Box) cgroupsV2() bool {
	b.pids.mu.Lock()
	defer b.pids.mu.Unlock()
	for _, c := range []*pidsCgroup{b.pids.cg, b.pids.mem} {
		if c != nil {
			c.mu.Lock()
			v2 := c.v2
			c.mu.Unlock()
			if v2 {
				return true
			}
		}
	}
	return false
}

// parkRoot parks the child for git (or the others) as root, keeps it for
// the box's next program, and keeps its thread until that program has
// exited or the child is dropped.
func (b *Box) parkRoot(git bool) {
	runtime.LockOSThread() // never unlocked: the thread carries the box and ends with the goroutine
	i := zygoteSlot(git)
	pc := &parkedChild{release: make(chan (<-chan struct{}), 1)}
	var err error
	b.shared.mu.RLock() // closing the box waits: the thread uses its descriptors
	closed := b.shared.closed
	if !closed {
		if pc.group, err = b.NewGroup(); err == nil {
			pc.p, err = b.parkFromThread(git, pc.group)
		}
	}
	b.shared.mu.RUnlock()
	if err != nil && !closed {
		b.rootParkFailed.Store(true) // threads enter ahead instead
	}
	b.holdParked(i, pc, func() bool { return true })
}

// parkFromThread enters the box on the calling, locked thread and parks
// the child there (see keepParkedRoot).
func (b *Box) parkFromThread(git bool, group *Group) (*vspawn.Parked, error) {
	if err := b.enterNamespacesAsRoot(git, b.rules, false, nil); err != nil {
		return nil, err
	}
	if err := dropBoundingSet(); err != nil {
		return nil, err
	}
	if err := restrictFiles(b.rules); err != nil {
		return nil, err
	}
	// The filter refuses a clone that makes namespaces: the child
	// installs it once it is made, and sets the limits.
	c := &vspawn.Calls{}
	addSeccomp(c)
	if err := group.join(&exec.Cmd{}); err != nil {
		return nil, err
	}
	defer group.leave()
	return vspawn.Park(vspawn.ParkAttr{Cloneflags: parkedCloneflags, Setpgid: true, Pdeathsig: syscall.SIGKILL,
		Setup: c, Rlimits: spawnRlimits(b.spec.Limits, b.dataLimit()), Files: 3})
}

// startParkedRoot starts cmd as root in the child parked for it, if
// there is one and cmd fits (three streams that are files, no process
// attributes of its own, the box's cgroups); ok says whether it did.
func (b *Box) startParkedRoot(cmd *exec.Cmd, opts StartOptions) (p *boxProcess, ok bool, err error) {
	if !fitsAhead(cmd, false) {
		return nil, false, nil
	}
	b.shared.mu.RLock()
	pc := b.shared.parked[zygoteSlot(opts.Git)].Swap(nil)
	b.shared.mu.RUnlock()
	if pc == nil {
		return nil, false, nil
	}
	if !pc.group.same(opts.Group) {
		pc.drop()
		return nil, false, nil
	}
	if cmd.Err != nil {
		pc.drop()
		return nil, true, cmd.Err // as cmd.Start would
	}
	dir, err := filepath.Abs(cmd.Dir)
	if err != nil {
		pc.drop()
		return nil, false, nil
	}
	streams, closeOpened, err := streamFiles(cmd)
	if err != nil {
		pc.drop()
		return nil, false, nil
	}
	defer closeOpened()
	files := make([]uintptr, len(streams))
	for i, f := range streams {
		files[i] = f.Fd()
	}
	pid, err := pc.p.Start(cmd.Path, cmd.Args, cmd.Environ(), dir, files)
	runtime.KeepAlive(streams)
	if errors.Is(err, vspawn.ErrNotParked) {
		pc.drop()
		return nil, false, nil
	}
	if err != nil {
		pc.release <- nil
		return nil, true, startError(cmd, err)
	}
	p = &boxProcess{cmd: cmd, done: make(chan struct{})}
	pc.release <- p.done
	if cmd.Process, err = os.FindProcess(pid); err != nil {
		killAndReap(pid)
		close(p.done)
		return nil, true, err
	}
	go p.await() // the child set the limits before it waited
	parkedStarts.Add(1)
	return p, true, nil
}

// same reports whether g groups what h does (both the box's cgroups, or
// both nothing).
func (g *Group) same(h *Group) bool {
	if g == nil || h == nil {
		return g == h
	}
	return g.cg == h.cg && g.mem == h.mem
}
