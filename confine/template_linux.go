//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/vspawn"
)

// Without root each program started directly builds the box's mount
// namespace from the plan: some hundred calls, and the plan's own look at
// the machine's files, for every program. A box that serves many (a
// server's: see KeepReady) keeps instead, once the box's user namespace
// is shared, a template for git and one for the others: the namespace
// the plan makes, made by a child that runs no program
// (vspawn.MountNamespace). A later program enters a copy of it, as root's
// programs enter a copy of the kept namespace (ownShm), with a procfs of
// its own PID namespace and a /dev/shm of its own over the template's;
// nothing runs in the template, so nothing a program can write is kept
// there. A template serves while the box's world is as it was (SpecKey,
// as for a zygote); a link made since in a protected place gets its
// read-only bind in the program's copy.

// mountTemplate is a box's mount namespace kept for its later programs.
type mountTemplate struct {
	ns     *os.File
	key    string          // SpecKey when it was planned
	absent map[string]bool // the system's paths the plan found missing
	links  map[string]bool // link targets bound read-only in it
	stale  atomic.Bool     // the box's world changed: not used again
	// checked: got for the box's SpecKey just now (a keeper's), so the
	// first start need not make the key again.
	checked atomic.Bool
}

// templateStarts counts programs started from a template, for tests.
var templateStarts atomic.Int64

// keepTemplate makes, in the background, the template for git (or the
// others) unless there is one that serves, once the box's user
// namespace is shared.
func (b *Box) keepTemplate(git bool) {
	if !directStart || b.root || !b.userns {
		return
	}
	i := zygoteSlot(git)
	b.shared.mu.Lock()
	if t := b.shared.templates[i]; t != nil && t.stale.Load() {
		t.ns.Close()
		b.shared.templates[i] = nil
		if pc := b.shared.parked[i].Swap(nil); pc != nil {
			pc.drop()
		}
	}
	if b.shared.closed || b.shared.user == nil || b.shared.templates[i] != nil || b.shared.building[i] {
		if b.shared.templates[i] != nil {
			b.keepParkedLocked(git)
		}
		b.shared.mu.Unlock()
		return
	}
	b.shared.building[i] = true
	b.shared.mu.Unlock()
	go func() {
		// Read-held while the child joins the user namespace, which
		// dropNamespaces closes.
		b.shared.mu.RLock()
		var t *mountTemplate
		if !b.shared.closed && b.shared.user != nil {
			t, _ = b.makeTemplate(git, b.shared.user) // none: programs plan their own
		}
		b.shared.mu.RUnlock()
		b.shared.mu.Lock()
		defer b.shared.mu.Unlock()
		b.shared.building[i] = false
		if t != nil && b.shared.closed {
			t.ns.Close()
			return
		}
		b.shared.templates[i] = t
		if t != nil {
			b.keepParkedLocked(git)
		}
	}()
}

// makeTemplate plans the box's mount namespace for git (or the others)
// and has it made in the user namespace user.
func (b *Box) makeTemplate(git bool, user *os.File) (*mountTemplate, error) {
	key := SpecKey(b.spec, b.mode) // before the plan: a change since makes it stale
	// Planned as the direct start plans (directSetup).
	plan, absent, err := (&Box{spec: b.spec, callerRoot: os.Geteuid() == 0}).planMountsNoting(git)
	if err != nil {
		return nil, err
	}
	links, err := b.linkTargets()
	if err != nil {
		return nil, err
	}
	c := &vspawn.Calls{}
	if err := addMountCalls(c, plan); err != nil {
		return nil, err
	}
	ns, err := vspawn.MountNamespace(user, c)
	if err != nil {
		return nil, err
	}
	return &mountTemplate{ns: ns, key: key, absent: absent, links: links}, nil
}

// linkTargets are the files and directories protectLinkTargets binds
// read-only now.
func (b *Box) linkTargets() (map[string]bool, error) {
	var p planner
	if err := b.protectLinkTargets(&p); err != nil {
		return nil, err
	}
	targets := map[string]bool{}
	for _, s := range p.steps {
		if s.op == opMount && s.src != "" && s.src == s.dst {
			targets[s.dst] = true
		}
	}
	return targets, nil
}

// templateFor is the template a program for git (or the others) starts
// from, or nil; the caller read-holds b.shared.mu.
func (b *Box) templateFor(git bool) *mountTemplate {
	t := b.liveTemplate(git)
	if t == nil {
		return nil
	}
	if t.checked.CompareAndSwap(true, false) {
		return t
	}
	if t.key != SpecKey(b.spec, b.mode) {
		t.stale.Store(true)
		return nil
	}
	return t
}

// liveTemplate is the template for git (or the others) unless there is
// none or it was found stale; the caller read-holds b.shared.mu.
func (b *Box) liveTemplate(git bool) *mountTemplate {
	t := b.shared.templates[zygoteSlot(git)]
	if t == nil || t.stale.Load() {
		return nil
	}
	return t
}

// closeTemplates closes the box's templates and ends the children
// parked in them; the caller holds b.shared.mu.
func (b *Box) closeTemplates() {
	b.discardParked()
	for i, t := range b.shared.templates {
		if t != nil {
			t.ns.Close()
			b.shared.templates[i] = nil
		}
	}
}

// addOwnShm adds the calls that mount a /dev/shm of the child's own over
// the one of the mount namespace it is in, with the spec's directories
// under /dev/shm (a run's own) taken before the new tmpfs hides them and
// put back on it.
func addOwnShm(c *vspawn.Calls, spec Spec) {
	under := underShm(spec)
	var trees []int
	for _, p := range under {
		trees = append(trees, c.Add("keep "+p, unix.SYS_OPEN_TREE, atFDCWD, c.String(p), unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE))
	}
	c.Add("mount "+PrivateShm, unix.SYS_MOUNT, c.String("tmpfs"), c.String(PrivateShm), c.String("tmpfs"),
		unix.MS_NOSUID|unix.MS_NODEV, c.String(privateShmOptions))
	for i, p := range under {
		var dirs []string
		for d := p; d != PrivateShm; d = filepath.Dir(d) {
			dirs = append([]string{d}, dirs...)
		}
		for _, d := range dirs {
			c.Allow(c.Add("mount point "+d, unix.SYS_MKDIRAT, atFDCWD, c.String(d), 0o755), unix.EEXIST)
		}
		m := c.Add("bind "+p+" again", unix.SYS_MOVE_MOUNT, 0, c.String(""), atFDCWD, c.String(p), unix.MOVE_MOUNT_F_EMPTY_PATH)
		c.UseResult(m, 0, trees[i])
		cl := c.Add("close the tree of "+p, unix.SYS_CLOSE, 0)
		c.UseResult(cl, 0, trees[i])
	}
}

// directSetupInTemplate is directSetup for a program that starts in a
// copy of the template t: the calls that enter it, give the program its
// own procfs and /dev/shm (the spec's directories under /dev/shm bound
// again), bind read-only what a link leads to that t does not bind
// (links: linkTargets now), and then confine it as directSetup does.
func directSetupInTemplate(hs helperSpec, t *mountTemplate, links map[string]bool) (calls *vspawn.Calls, limits []vspawn.Rlimit, done func(), err error) {
	c := &vspawn.Calls{}
	c.Add("enter the box's mount namespace", unix.SYS_SETNS, t.ns.Fd(), unix.CLONE_NEWNS)
	c.Add("a copy of the box's mount namespace", unix.SYS_UNSHARE, unix.CLONE_NEWNS)
	// Over the template's: a procfs may only be mounted in a user
	// namespace where one is visible already.
	c.Add("mount a private /proc", unix.SYS_MOUNT, c.String("proc"), c.String("/proc"), c.String("proc"),
		privateProcFlags, c.String(privateProcOptions))
	addOwnShm(c, hs.Spec)
	var p planner
	for target := range links {
		if !t.links[target] {
			p.bindReadOnly(target, unix.ENOENT)
		}
	}
	if err := addMountCalls(c, p.steps); err != nil {
		return nil, nil, nil, err
	}
	return confineCalls(c, hs, t.absent)
}
