//go:build linux

package confine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/vspawn"
)

// As root a program otherwise starts from a locked thread that first
// enters the box itself (enter): a goroutine of its own, the thread's
// hand-back, os/exec's start. Where the calling goroutine is on the
// process's main thread, which the Go runtime never ends, the program's
// child confines itself instead, in the order enter does: it joins the
// run's cgroups, enters the box's mount namespace and makes a copy of
// its own with a /dev/shm of its own (the run's directories bound there
// again), enters the network namespace, is made the first process of
// PID and IPC namespaces of its own by its clone, drops the bounding
// set, restricts itself with the box's ruleset and installs the syscall
// filter; then it sets the limits and executes the program (vspawn). Its
// parent-death signal fires only when vtexec ends: the main thread does
// not end before the process.

// rootDirect is whether programs start this way where they can (tests
// turn it off to compare with a start from a thread).
var rootDirect = vspawn.Available

// rootDirectStarts counts programs whose start a child made this way
// (executed, or failed in the child), for tests.
var rootDirectStarts atomic.Int64

// onMainThread reports whether the calling thread is the process's
// first, which the runtime keeps until the process ends (a goroutine
// that ends locked to it wedges it instead).
func onMainThread() bool { return unix.Gettid() == unix.Getpid() }

// startRootDirect starts cmd as root, a pipeline's first program not
// granted the network, by a child that confines itself, when the calling
// goroutine is on the main thread, the box's mount namespace is built
// or kept, the run's cgroups are v1 ones (v2 places a child by clone3)
// and cmd fits (three streams that are files, no attributes of its own);
// ok says whether it did.
func (b *Box) startRootDirect(cmd *exec.Cmd, opts StartOptions) (p *boxProcess, ok bool, err error) {
	if !rootDirect || !fitsAhead(cmd, false) {
		return nil, false, nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !onMainThread() {
		return nil, false, nil
	}
	if cmd.Err != nil {
		return nil, true, cmd.Err // as cmd.Start would
	}
	dir, err := filepath.Abs(cmd.Dir)
	if err != nil {
		return nil, false, nil
	}
	m := &b.mounts[zygoteSlot(opts.Git)]
	m.mu.Lock()
	defer m.mu.Unlock()
	if !b.keptMountNSLocked(opts.Git) {
		return nil, false, nil
	}
	streams, closeOpened, err := streamFiles(cmd)
	if err != nil {
		return nil, false, nil
	}
	defer closeOpened()
	files := make([]uintptr, len(streams))
	for i, f := range streams {
		files[i] = f.Fd()
	}
	c := &vspawn.Calls{}
	cgroups, unlock := opts.Group.lockFiles()
	defer unlock()
	if cgroups == nil {
		return nil, false, nil // closed (the thread's start says so) or v2
	}
	joins := map[string]bool{}
	for _, cg := range cgroups {
		c.Keep(cg)
		name := "join the " + cg.ctl + " cgroup"
		c.Add(name, unix.SYS_WRITE, cg.fd.Fd(), uintptr(unsafe.Pointer(&joinSelf[0])), 1)
		joins[name] = true
	}
	b.addEnterCalls(c, m.fd)
	granting := false
	if b.rules != nil {
		granting = addRuleset(c, b.rules, opts.Git)
	} else {
		c.Add("no_new_privs", unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	}
	addSeccomp(c)
	pid, err := vspawn.Start(vspawn.Attr{
		Path: cmd.Path, Argv: cmd.Args, Env: cmd.Environ(), Dir: dir, Files: files,
		Cloneflags: unix.CLONE_NEWPID | unix.CLONE_NEWIPC, Setpgid: true, Pdeathsig: syscall.SIGKILL,
		Setup: c, Rlimits: spawnRlimits(b.spec.Limits, b.dataLimit()),
	})
	runtime.KeepAlive(streams)
	runtime.KeepAlive(c)
	var refused *vspawn.CloneError
	if errors.As(err, &refused) {
		return nil, false, nil
	}
	var failed *vspawn.CallError
	if errors.As(err, &failed) && joins[failed.Call] &&
		(errors.Is(err, unix.ENODEV) || errors.Is(err, unix.ENOENT)) {
		// The cgroup was removed (another vtexec found it stale): the
		// thread's start makes it again.
		return nil, false, nil
	}
	rootDirectStarts.Add(1)
	if err != nil {
		return nil, true, startError(cmd, err)
	}
	if granting {
		b.rules.grantedBoxMounts(opts.Git)
	}
	p = &boxProcess{cmd: cmd, done: make(chan struct{}), waitedByCaller: true}
	if cmd.Process, err = os.FindProcess(pid); err != nil {
		killAndReap(pid)
		return nil, true, err
	}
	keepMountNamespace(pid, p.done) // the program's own copy, which a thread would hold
	return p, true, nil
}

// joinSelf, written to a cgroup's tasks file, moves the writer.
var joinSelf = []byte("0")

// keptMountNSLocked reports whether the box's mount namespace for git
// (or the others) is built or kept (persisted), opening a kept one; the
// caller holds its lock. One neither built nor kept is built by a
// thread's start.
func (b *Box) keptMountNSLocked(git bool) bool {
	m := &b.mounts[zygoteSlot(git)]
	if m.built {
		return m.err == nil
	}
	fd, ok := openPersisted(persistedPath(b.key, git))
	if !ok {
		return false
	}
	m.built, m.fd = true, fd
	return true
}

// addEnterCalls adds the calls that move the child, as root, into a copy
// of its own of the mount namespace mntns with a /dev/shm of its own
// (as ownShm makes one), into the box's network namespace, and drop the
// bounding set.
func (b *Box) addEnterCalls(c *vspawn.Calls, mntns int) {
	c.Add("enter the mount namespace", unix.SYS_SETNS, uintptr(mntns), unix.CLONE_NEWNS)
	c.Add("unshare the mount namespace", unix.SYS_UNSHARE, unix.CLONE_NEWNS)
	addOwnShm(c, b.spec)
	if b.netns >= 0 {
		c.Add("enter the network namespace", unix.SYS_SETNS, uintptr(b.netns), unix.CLONE_NEWNET)
	}
	addDropBoundingSet(c)
}

// addRuleset adds the calls that restrict the child with rs, adding
// first, where no thread has yet, the rules of the box's own mounts for
// git (or the others) as the child's mount namespace has them; granting
// says whether it does (the caller records it once the child started:
// grantedBoxMounts).
func addRuleset(c *vspawn.Calls, rs *ruleset, git bool) (granting bool) {
	m := &rs.boxMounts[zygoteSlot(git)]
	m.mu.Lock()
	granting = !m.granted
	m.mu.Unlock()
	if granting {
		addRule := func(name string, rule *landlockRule) int {
			c.Keep(rule)
			return c.Add("landlock rule "+name, unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs.fd), ll.RuleTypePathBeneath, uintptr(unsafe.Pointer(rule)), 0)
		}
		for _, r := range rs.boxMountRules() {
			addOwnRule(c, r, rs.abi, addRule)
		}
	}
	c.Add("no_new_privs", unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	c.Add("landlock: restrict", unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rs.fd), 0)
	return granting
}

// grantedBoxMounts records that a child added the rules of the box's own
// mounts for git (or the others) to rs.
func (rs *ruleset) grantedBoxMounts(git bool) {
	m := &rs.boxMounts[zygoteSlot(git)]
	m.mu.Lock()
	m.granted = true
	m.mu.Unlock()
}

// lockFiles locks the group's cgroups and returns them (none: an empty
// list), or nil when one is closed or a v2 one; unlock unlocks them.
func (g *Group) lockFiles() (cgroups []*pidsCgroup, unlock func()) {
	var locked []*pidsCgroup
	unlock = func() {
		for _, c := range locked {
			c.mu.Unlock()
		}
	}
	if g == nil {
		return []*pidsCgroup{}, unlock
	}
	for _, c := range []*pidsCgroup{g.cg, g.mem} {
		if c == nil {
			continue
		}
		c.mu.Lock()
		locked = append(locked, c)
		if c.fd == nil || c.v2 {
			return nil, unlock
		}
	}
	return locked, unlock
}

// killAndReap kills pid, a child started without an os.Process, and
// reaps it.
func killAndReap(pid int) {
	syscall.Kill(pid, syscall.SIGKILL)
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
}
