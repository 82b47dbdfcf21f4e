//go:build linux

package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/dirwatch"
)

// A box's mount namespace changes what its programs see of the file
// system, where Landlock (ABI < 9) cannot reach:
//
//   - the box has a root of its own (newRoot), holding the system's
//     program and library directories, the /etc files programs read, a
//     few devices, its own /proc, and the directories the spec grants;
//     nothing else of the machine — no unix socket, whatever its path,
//     no mount table, no cgroup tree — is there to find;
//   - protected paths inside the workspace are bound read-only onto
//     themselves: they cannot be changed or removed, whatever Landlock
//     grants on the workspace. A protected directory name that does not
//     exist gets an empty placeholder while the box lives, so it cannot
//     be created either (see placeholders).
//
// It is made once per box, by the first thread that starts a program
// there, and entered with setns by the threads of the later ones.

// buildMountNamespace moves the calling, locked thread into a new mount
// namespace, sets it up and returns a descriptor for it. writableGitDirs:
// the git directories may be written (their hooks and config stay
// read-only).
func (b *Box) buildMountNamespace(writableGitDirs bool) (int, error) {
	plan, err := b.planMounts(writableGitDirs)
	if err != nil {
		return -1, err
	}
	if err := unix.Unshare(unix.CLONE_FS | unix.CLONE_NEWNS); err != nil {
		return -1, fmt.Errorf("unshare the mount namespace: %w", err)
	}
	if err := plan.apply(); err != nil {
		return -1, err
	}
	fd, err := unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open the mount namespace: %w", err)
	}
	return fd, nil
}

// A mount namespace is set up in two steps: a plan, made where the
// machine's file system is seen as it is (its links read, its paths
// looked up), then the plan's system calls, made in the new namespace by
// the box's thread (root), its Go helper, or vtexec's child itself before
// it executes the program (see directstart_linux.go): one list of calls
// whichever makes them.

// mountOp is the system call of a mountStep.
type mountOp uint8

const (
	opMount mountOp = iota
	opMkdir
	opMknod
	opSymlink
	opPivotRoot
	opChdir
	opUnmount
)

// mountStep is one system call of a mount plan.
type mountStep struct {
	op                 mountOp
	src, dst, fs, data string // mount: source, target, type, data; pivot: new, old; symlink: target, link; others: dst
	flags              uintptr
	mode               uint32
	allow              unix.Errno // an errno that is no failure (a path gone since the plan, a directory made since)
	what               string     // what it does, for errors
}

// mountPlan is the system calls that set up a box's mount namespace.
type mountPlan []mountStep

// apply makes the plan's calls in the calling thread's own, new mount
// namespace.
func (p mountPlan) apply() error {
	for _, s := range p {
		var err error
		switch s.op {
		case opMount:
			err = unix.Mount(s.src, s.dst, s.fs, s.flags, s.data)
		case opMkdir:
			err = unix.Mkdir(s.dst, s.mode)
		case opMknod:
			err = unix.Mknod(s.dst, s.mode, 0)
		case opSymlink:
			err = unix.Symlink(s.src, s.dst)
		case opPivotRoot:
			err = unix.PivotRoot(s.src, s.dst)
		case opChdir:
			err = unix.Chdir(s.dst)
		case opUnmount:
			err = unix.Unmount(s.dst, int(s.flags))
		}
		if err != nil && !(s.allow != 0 && errors.Is(err, s.allow)) {
			return fmt.Errorf("%s: %w", s.what, err)
		}
	}
	return nil
}

// planMounts plans the box's mount namespace (see setUpMounts).
func (b *Box) planMounts(writableGitDirs bool) (mountPlan, error) {
	plan, _, err := b.planMountsNoting(writableGitDirs)
	return plan, err
}

// planMountsNoting is planMounts, and the system's paths it found
// missing.
func (b *Box) planMountsNoting(writableGitDirs bool) (mountPlan, map[string]bool, error) {
	// Room for a usual plan (some 110 steps), which appends copied seven
	// times as it grew.
	p := planner{steps: make(mountPlan, 0, 192)}
	p.add(mountStep{op: opMount, dst: "/", flags: unix.MS_REC | unix.MS_PRIVATE, what: "make mounts private"})
	keep := append(append([]string{}, b.spec.ReadWrite...), b.spec.ReadOnly...)
	if err := p.newRoot(keep, b.root || b.callerRoot); err != nil {
		return nil, nil, err
	}
	for _, path := range b.spec.Protected {
		if err := p.readOnlyBind(path.Path, true); err != nil {
			return nil, nil, err
		}
	}
	for _, g := range b.spec.GitDirs {
		var err error
		if writableGitDirs {
			err = p.protectGitDir(g)
		} else {
			err = p.readOnlyBind(g, false)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if err := b.protectLinkTargets(&p); err != nil {
		return nil, nil, err
	}
	return p.steps, p.absent, nil
}

// setUpMounts plans and sets up the calling thread's own, new mount
// namespace.
func (b *Box) setUpMounts(writableGitDirs bool) error {
	plan, err := b.planMounts(writableGitDirs)
	if err != nil {
		return err
	}
	return plan.apply()
}

// planner builds a mount plan.
type planner struct {
	steps mountPlan
	// made are the directories of the new root made so far: most binds
	// share a parent (the /etc files).
	made map[string]bool
	// absent are the system's paths found missing.
	absent map[string]bool
}

// lstat is the type of path, as os.Lstat has it. Each path is looked up
// on its own: reading /etc whole (ext4 sorts a directory by hash to list
// it) cost a fresh run more than the ~70 lookups, most of them missing
// names the kernel answers from its cache.
func (p *planner) lstat(path string) (os.FileMode, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return 0, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return os.ModeDir, nil
	case unix.S_IFLNK:
		return os.ModeSymlink, nil
	case unix.S_IFREG:
		return 0, nil
	case unix.S_IFCHR:
		return os.ModeDevice | os.ModeCharDevice, nil
	case unix.S_IFBLK:
		return os.ModeDevice, nil
	default:
		return os.ModeIrregular, nil
	}
}

func (p *planner) add(s mountStep) { p.steps = append(p.steps, s) }

// maxLinkWalk bounds the entries of protected places looked at for links.
const maxLinkWalk = 50000

// protectLinkTargets binds read-only what a link inside a protected
// place (an agent's settings directory, the git directory but its
// objects, refs and logs, a submodule's too) leads to inside the
// read-write directories: the file or
// directory is read under the protected name, so it is protected as if
// it lay there.
func (b *Box) protectLinkTargets(p *planner) error {
	var places []string
	for _, pr := range b.spec.Protected {
		if pr.Dir {
			places = append(places, pr.Path)
		}
	}
	places = append(places, b.spec.GitDirs...)
	key := strings.Join(places, "\x00") + "\x01" + strings.Join(b.spec.GitDirs, "\x00") + "\x01" + strings.Join(b.spec.ReadWrite, "\x00")
	if _, ok := walkedNoLinks.Get(key); ok {
		return nil
	}
	var w *dirwatch.Watch // before the walk: a link made during it shows later
	if walkedNoLinks.Again(key) {
		w = dirwatch.NewEntries()
	}
	linkWalksMade.Add(1)
	watched, linked := w != nil, false
	seen := 0
	for _, place := range places {
		if watched {
			// The place made, removed or replaced.
			watched = w.AddNames(filepath.Dir(place), false, filepath.Base(place))
		}
		inGit := slices.Contains(b.spec.GitDirs, place)
		err := filepath.WalkDir(place, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				watched = watched && errors.Is(err, fs.ErrNotExist) && path == place
				return nil
			}
			if seen++; seen > maxLinkWalk {
				watched = false
				return filepath.SkipAll
			}
			if inGit && d.IsDir() && gitData(path) {
				return filepath.SkipDir // data, not configuration or code
			}
			if d.IsDir() && watched {
				watched = w.Add(path)
			}
			if d.Type()&os.ModeSymlink == 0 {
				return nil
			}
			linked = true
			target, err := filepath.EvalSymlinks(path)
			if err != nil || !b.writable(target) {
				return nil
			}
			return p.readOnlyBind(target, true)
		})
		if err != nil {
			w.Close()
			return err
		}
	}
	if watched && !linked {
		walkedNoLinks.Put(key, struct{}{}, w)
	} else {
		w.Close()
	}
	return nil
}

// walkedNoLinks keeps, by the places a link walk looks at and the box's
// read-write directories, that it found no link there, while a watch of
// the directories it read (and of the places' own names) sees no entry
// come or go: a server walks them before every program otherwise. A
// walk that found a link is made again every time, as where a link
// leads can change with no entry of these directories changing; so is
// one that could not watch all it read.
var walkedNoLinks = dirwatch.Kept[string, struct{}]{Max: 16}

// linkWalksMade counts link walks made, for tests.
var linkWalksMade atomic.Int64

// gitData reports whether the directory path is a git directory's
// objects, refs or logs (a submodule's under modules/ too): data git
// never reads as configuration or code, and in a busy repository most of
// its entries, which the link walk would otherwise look at on every
// start.
func gitData(path string) bool {
	switch filepath.Base(path) {
	case "objects", "refs", "logs":
		info, err := os.Lstat(filepath.Join(filepath.Dir(path), "HEAD"))
		return err == nil && info.Mode().IsRegular()
	}
	return false
}

// writable reports whether p lies in one of the box's read-write
// directories.
func (b *Box) writable(p string) bool {
	for _, rw := range b.spec.ReadWrite {
		if within(p, rw) {
			return true
		}
	}
	return false
}

// gitDirConfig are the entries of a git directory that configure git or
// hold code it runs, for it and for the git directories it holds
// (submodules' under modules/, other worktrees' under worktrees/):
// directories are made, empty, where they are missing, so that nothing
// can be put there either; files that are missing are left to Disarm.
var gitDirConfig = []struct {
	name string
	dir  bool
}{{"config", false}, {"config.worktree", false}, {"commondir", false}, {"hooks", true}, {"info", true},
	{"modules", true}, {"worktrees", true}}

// protectGitDir sets up a git directory for git commands that write
// history: the directory is a mount point of its own, so it cannot be
// renamed, removed or replaced, and what configures git or runs code in
// it is read-only (gitDirConfig); the rest (HEAD, the index, refs,
// objects, logs) stays writable, with the *.lock files and renames git
// writes them through.
func (p *planner) protectGitDir(g string) error {
	p.add(mountStep{op: opMount, src: g, dst: g, flags: unix.MS_BIND | unix.MS_REC, what: "protect " + g})
	for _, e := range gitDirConfig {
		path := filepath.Join(g, e.name)
		if !e.dir {
			if err := p.readOnlyBind(path, true); err != nil {
				return err
			}
			continue
		}
		if _, err := os.Lstat(path); err != nil {
			p.add(mountStep{op: opMkdir, dst: path, mode: 0o755, allow: unix.EEXIST, what: "protect " + path})
		}
		p.bindReadOnly(path, 0)
	}
	return nil
}

// readOnlyBind plans a read-only bind of path onto itself. missingOK: a
// path that is not there (when planned, or when bound) is no failure.
func (p *planner) readOnlyBind(path string, missingOK bool) error {
	if _, err := os.Lstat(path); err != nil {
		if missingOK && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("protect %s: %w", path, err)
	}
	var allow unix.Errno
	if missingOK {
		allow = unix.ENOENT
	}
	p.bindReadOnly(path, allow)
	return nil
}

// bindReadOnly plans a read-only bind of path onto itself.
func (p *planner) bindReadOnly(path string, allow unix.Errno) {
	p.add(mountStep{op: opMount, src: path, dst: path, flags: unix.MS_BIND | unix.MS_REC, allow: allow, what: "protect " + path})
	p.add(mountStep{op: opMount, dst: path, flags: unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY, allow: allow, what: "protect " + path + " read-only"})
}

// newRoot plans moving the mount namespace onto a root of the box's own:
// a small tmpfs, read-only once built, holding binds of the system
// directories (systemReadExec, read-only; links such as /bin -> usr/bin
// made again as links), of the /etc and /sys entries programs read
// (systemReadFiles), of the devices in systemDevices, an empty /tmp, a
// /proc of its own, and the paths of keep at their own paths. As
// bubblewrap does, it first pivots onto a tmpfs mounted on /tmp, so that
// every source stays reachable under /oldroot, builds the new root
// there, and pivots again. The sources are looked up here, in the
// machine's file system: a link is bound as what it leads to.
func (p *planner) newRoot(keep []string, rootOwned bool) error {
	const base, old, nr = "/tmp", "/oldroot", "/newroot"
	p.made = map[string]bool{nr: true}
	p.absent = map[string]bool{}
	p.add(mountStep{op: opMount, src: "tmpfs", dst: base, fs: "tmpfs", flags: unix.MS_NOSUID | unix.MS_NODEV, data: "mode=0755,size=64k", what: "new root: tmpfs"})
	for _, d := range []string{base + old, base + nr} {
		p.add(mountStep{op: opMkdir, dst: d, mode: 0o755, what: "new root: mkdir " + d})
	}
	p.add(mountStep{op: opPivotRoot, src: base, dst: base + old, what: "new root: pivot"})
	p.add(mountStep{op: opChdir, dst: "/", what: "new root: chdir /"})
	p.add(mountStep{op: opMount, src: "tmpfs", dst: nr, fs: "tmpfs", flags: unix.MS_NOSUID | unix.MS_NODEV, data: "mode=0755,size=" + newRootSize, what: "new root: tmpfs"})
	bind := func(path string, rdonly bool) error {
		mode, err := p.lstat(path)
		if err != nil {
			p.absent[path] = errors.Is(err, os.ErrNotExist)
			return nil // absent here
		}
		src, dst := old+path, nr+path
		if mode&os.ModeSymlink != 0 {
			if slices.Contains(systemReadExec, path) {
				// /bin -> usr/bin and the like: the same link.
				target, err := os.Readlink(path)
				if err != nil {
					return err
				}
				p.mkdirAll(filepath.Dir(dst))
				p.add(mountStep{op: opSymlink, src: target, dst: dst, what: "new root: link " + path})
				return nil
			}
			resolved, err := filepath.EvalSymlinks(path)
			if err != nil {
				return nil // a link to nothing
			}
			fi, err := os.Stat(resolved)
			if err != nil {
				return nil
			}
			src, mode = old+resolved, fi.Mode()
		}
		p.mountpoint(dst, mode.IsDir())
		p.add(mountStep{op: opMount, src: src, dst: dst, flags: unix.MS_BIND | unix.MS_REC, what: "new root: bind " + path})
		if rdonly {
			p.add(mountStep{op: opMount, dst: dst, flags: unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID, what: "new root: " + path + " read-only"})
		}
		return nil
	}
	for _, path := range systemReadExec {
		if err := bind(path, true); err != nil {
			return err
		}
	}
	for _, path := range systemReadFiles() {
		if path == "/sys/fs/cgroup" {
			continue // the machine's cgroup tree, not the box's
		}
		// A read-only bind of a file costs a second mount: for a caller
		// who is not root, the files are root's, which it cannot write
		// (and Landlock lets the box only read them).
		if err := bind(path, rootOwned); err != nil {
			return err
		}
	}
	p.mkdirAll(nr + "/dev")
	p.add(mountStep{op: opMount, src: "tmpfs", dst: nr + "/dev", fs: "tmpfs", flags: unix.MS_NOSUID | unix.MS_NOEXEC, data: "mode=0755,size=64k", what: "new root: /dev"})
	for _, d := range systemDevices {
		if err := bind(d, false); err != nil {
			return err
		}
	}
	// A /dev/shm of the box's own, empty at first: POSIX shared memory
	// and semaphores (Python's multiprocessing, pytest-xdist) live there,
	// and nothing of the machine's is.
	p.mkdirAll(nr + PrivateShm) // the tmpfs sets its mode
	p.add(mountStep{op: opMount, src: "tmpfs", dst: nr + PrivateShm, fs: "tmpfs", flags: unix.MS_NOSUID | unix.MS_NODEV, data: privateShmOptions, what: "new root: " + PrivateShm})
	for _, l := range [][2]string{{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}} {
		p.add(mountStep{op: opSymlink, src: l[1], dst: nr + "/dev/" + l[0], what: "new root: /dev/" + l[0]})
	}
	for _, path := range keep {
		if err := bind(path, false); err != nil {
			return err
		}
	}
	// After the binds: one may lie under /dev (runs' directories in
	// /dev/shm).
	p.add(mountStep{op: opMount, dst: nr + "/dev", flags: unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NOEXEC, data: "mode=0755,size=64k", what: "new root: /dev read-only"})
	for _, d := range []string{"/tmp", "/proc"} {
		p.mkdirAll(nr + d)
	}
	// A procfs of the box's own that shows only the processes the box
	// may trace: Landlock keeps those to its own, so other processes'
	// command lines and status are not even listed.
	p.add(mountStep{op: opMount, src: "proc", dst: nr + "/proc", fs: "proc", flags: privateProcFlags, data: privateProcOptions, what: "mount a private /proc"})
	p.add(mountStep{op: opChdir, dst: nr, what: "new root: chdir"})
	p.add(mountStep{op: opPivotRoot, src: ".", dst: ".", what: "new root: pivot"})
	// The old root, with the machine's mounts, is now stacked under the
	// new one: let it go.
	p.add(mountStep{op: opUnmount, dst: ".", flags: unix.MNT_DETACH, what: "new root: detach the old root"})
	p.add(mountStep{op: opChdir, dst: "/", what: "new root: chdir /"})
	// Nothing more may be made at the top.
	p.add(mountStep{op: opMount, dst: "/", flags: unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV, data: "mode=0755,size=" + newRootSize, what: "new root read-only"})
	return nil
}

// mkdirAll plans dir and its parents in the new root not made yet.
func (p *planner) mkdirAll(dir string) {
	if p.made[dir] {
		return
	}
	p.mkdirAll(filepath.Dir(dir))
	// EEXIST: a directory of a tmpfs mounted since (/dev/shm under /dev).
	p.add(mountStep{op: opMkdir, dst: dir, mode: 0o755, allow: unix.EEXIST, what: "mount point " + dir})
	p.made[dir] = true
}

// mountpoint plans path's missing directories (and path itself, as a
// directory or an empty file) in the new root.
func (p *planner) mountpoint(path string, dir bool) {
	if dir {
		p.mkdirAll(path)
		return
	}
	p.mkdirAll(filepath.Dir(path))
	// Made without opening it: a descriptor open for writing, even one a
	// concurrent fork of another goroutine holds until its exec closes
	// it, makes the read-only remount of the new root fail with EBUSY.
	p.add(mountStep{op: opMknod, dst: path, mode: unix.S_IFREG | 0o644, allow: unix.EEXIST, what: "mount point " + path})
}

// within reports whether p is root or lies below it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// enterMountNamespace moves the calling, locked thread into the mount
// namespace fd; it first stops sharing file system attributes with the
// process's other threads, which setns requires.
func enterMountNamespace(fd int) error {
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return fmt.Errorf("confine: unshare fs: %w", err)
	}
	if err := unix.Setns(fd, unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("confine: enter the mount namespace: %w", err)
	}
	return nil
}

// privateProcFlags and privateProcOptions are the box's procfs's: only
// the processes the box may trace are listed.
const (
	privateProcFlags   = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	privateProcOptions = "hidepid=ptraceable"
)

// privateShmOptions are the box's /dev/shm's.
const privateShmOptions = "mode=1777,size=256m"

// newRootSize bounds the new root's tmpfs, which holds mount points.
const newRootSize = "1m"
