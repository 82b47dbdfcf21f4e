//go:build linux

package confine

import (
	"errors"
	"maps"
	"os"
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

// parkedChild is a child parked in a copy of the template t.
type parkedChild struct {
	p     *vspawn.Parked
	t     *mountTemplate
	links map[string]bool // linkTargets when it was made
	// release takes, once the child was started or dropped, what its
	// thread waits for before it ends (its end kills the child and the
	// program: the parent-death signal): the program's exit, or nil.
	release chan (<-chan struct{})
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
		spec := b.spec
		spec.Network = false
		hs := helperSpec{Spec: spec, ABI: b.report.Landlock, Git: git, CallerRoot: os.Geteuid() == 0}
		if pc.links, err = (&Box{spec: spec, callerRoot: hs.CallerRoot}).linkTargets(); err == nil {
			setup, limits, done, err := directSetupInTemplate(hs, t, pc.links)
			if err == nil {
				pc.p, _ = vspawn.Park(vspawn.ParkAttr{Cloneflags: parkedCloneflags, JoinUser: b.shared.user, JoinNet: b.shared.net,
					Setpgid: true, Pdeathsig: syscall.SIGKILL, Setup: setup, Rlimits: limits, Files: 3})
				done() // the child has its own copies
			}
		}
	}
	b.shared.mu.RUnlock()
	b.shared.mu.Lock()
	keep := pc.p != nil && !b.shared.closed && !t.stale.Load() && b.shared.templates[i] == t
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
// t (hs; links: linkTargets now), in the child parked for it, if there
// is one that fits; used says whether it did, err how the program's
// start went then. The caller read-holds b.shared.mu.
func (b *Box) startParked(a vspawn.Attr, hs helperSpec, t *mountTemplate, links map[string]bool) (pid int, used bool, err error) {
	if len(a.Files) != 3 || a.Cloneflags&^(unix.CLONE_NEWUSER|unix.CLONE_NEWNET|unix.CLONE_NEWNS) != parkedCloneflags ||
		!a.Setpgid || a.Pdeathsig != syscall.SIGKILL || hs.NetReady != 0 || hs.Zygote || hs.Spec.Network || hs.exited == nil {
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
	pc.release <- hs.exited
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
