//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
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
	if err := unix.Unshare(unix.CLONE_FS | unix.CLONE_NEWNS); err != nil {
		return -1, fmt.Errorf("unshare the mount namespace: %w", err)
	}
	if err := b.setUpMounts(writableGitDirs); err != nil {
		return -1, err
	}
	fd, err := unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open the mount namespace: %w", err)
	}
	return fd, nil
}

// setUpMounts changes the calling thread's own, new mount namespace.
func (b *Box) setUpMounts(writableGitDirs bool) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	keep := append(append([]string{}, b.spec.ReadWrite...), b.spec.ReadOnly...)
	if err := newRoot(keep, b.root || b.callerRoot); err != nil {
		return err
	}
	for _, p := range b.spec.Protected {
		if err := readOnlyBind(p.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	for _, g := range b.spec.GitDirs {
		if !writableGitDirs {
			if err := readOnlyBind(g); err != nil {
				return err
			}
			continue
		}
		if err := protectGitDir(g); err != nil {
			return err
		}
	}
	return b.protectLinkTargets()
}

// maxLinkWalk bounds the entries of protected places looked at for links.
const maxLinkWalk = 50000

// protectLinkTargets binds read-only what a link inside a protected
// place (an agent's settings directory, the git directory but its
// objects) leads to inside the read-write directories: the file or
// directory is read under the protected name, so it is protected as if
// it lay there.
func (b *Box) protectLinkTargets() error {
	var places []string
	for _, p := range b.spec.Protected {
		if p.Dir {
			places = append(places, p.Path)
		}
	}
	places = append(places, b.spec.GitDirs...)
	seen := 0
	for _, place := range places {
		err := filepath.WalkDir(place, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > maxLinkWalk {
				return filepath.SkipAll
			}
			if d.IsDir() && slices.Contains(b.spec.GitDirs, filepath.Dir(p)) && d.Name() == "objects" {
				return filepath.SkipDir // data, not configuration or code
			}
			if d.Type()&os.ModeSymlink == 0 {
				return nil
			}
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !b.writable(target) {
				return nil
			}
			if err := readOnlyBind(target); err != nil {
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
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
func protectGitDir(g string) error {
	if err := unix.Mount(g, g, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("protect %s: %w", g, err)
	}
	for _, e := range gitDirConfig {
		p := filepath.Join(g, e.name)
		if e.dir {
			if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("protect %s: %w", p, err)
			}
		}
		if err := readOnlyBind(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// newRoot moves the calling thread's mount namespace onto a root of the
// box's own: a small tmpfs, read-only once built, holding binds of the
// system directories (systemReadExec, read-only; links such as /bin ->
// usr/bin made again as links), of the /etc and /sys entries programs
// read (systemReadFiles), of the devices in systemDevices, an empty /tmp,
// a /proc of its own, and the paths of keep at their own paths. As
// bubblewrap does, it first pivots onto a tmpfs mounted on /tmp, so that
// every source stays reachable under /oldroot, builds the new root
// there, and pivots again.
func newRoot(keep []string, rootOwned bool) error {
	const base, old, nr = "/tmp", "/oldroot", "/newroot"
	if err := unix.Mount("tmpfs", base, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("new root: tmpfs: %w", err)
	}
	for _, d := range []string{base + old, base + nr} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("new root: %w", err)
		}
	}
	if err := unix.PivotRoot(base, base+old); err != nil {
		return fmt.Errorf("new root: pivot: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", nr, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size="+newRootSize); err != nil {
		return fmt.Errorf("new root: tmpfs: %w", err)
	}
	made := dirs{nr: true}
	bind := func(p string, rdonly bool) error {
		src := old + p
		fi, err := os.Lstat(src)
		if err != nil {
			return nil // absent here
		}
		dst := nr + p
		if fi.Mode()&os.ModeSymlink != 0 {
			if slices.Contains(systemReadExec, p) {
				// /bin -> usr/bin and the like: the same link.
				target, err := os.Readlink(src)
				if err != nil {
					return err
				}
				if err := made.make(filepath.Dir(dst)); err != nil {
					return err
				}
				return os.Symlink(target, dst)
			}
			if fi, err = os.Stat(src); err != nil {
				return nil // a link to nothing
			}
		}
		if err := mountpoint(made, dst, fi.IsDir()); err != nil {
			return err
		}
		if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("new root: bind %s: %w", p, err)
		}
		if rdonly {
			if err := unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID, ""); err != nil {
				return fmt.Errorf("new root: %s read-only: %w", p, err)
			}
		}
		return nil
	}
	for _, p := range systemReadExec {
		if err := bind(p, true); err != nil {
			return err
		}
	}
	for _, p := range systemReadFiles {
		if p == "/sys/fs/cgroup" {
			continue // the machine's cgroup tree, not the box's
		}
		// A read-only bind of a file costs a second mount: for a caller
		// who is not root, the files are root's, which it cannot write
		// (and Landlock lets the box only read them).
		if err := bind(p, rootOwned); err != nil {
			return err
		}
	}
	if err := made.make(nr + "/dev"); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", nr+"/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("new root: /dev: %w", err)
	}
	for _, d := range systemDevices {
		if err := bind(d, false); err != nil {
			return err
		}
	}
	// A /dev/shm of the box's own, empty at first: POSIX shared memory
	// and semaphores (Python's multiprocessing, pytest-xdist) live there,
	// and nothing of the machine's is.
	if err := made.make(nr + PrivateShm); err != nil { // the tmpfs sets its mode
		return err
	}
	if err := unix.Mount("tmpfs", nr+PrivateShm, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=256m"); err != nil {
		return fmt.Errorf("new root: %s: %w", PrivateShm, err)
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, nr+"/dev/"+name); err != nil {
			return err
		}
	}
	for _, p := range keep {
		if err := bind(p, false); err != nil {
			return err
		}
	}
	// After the binds: one may lie under /dev (runs' directories in
	// /dev/shm).
	if err := unix.Mount("", nr+"/dev", "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("new root: /dev read-only: %w", err)
	}
	for _, d := range []string{"/tmp", "/proc"} {
		if err := made.make(nr + d); err != nil {
			return err
		}
	}
	// A procfs of the box's own that shows only the processes the box
	// may trace: Landlock keeps those to its own, so other processes'
	// command lines and status are not even listed.
	if err := unix.Mount("proc", nr+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "hidepid=ptraceable"); err != nil {
		return fmt.Errorf("mount a private /proc: %w", err)
	}
	if err := unix.Chdir(nr); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("new root: pivot: %w", err)
	}
	// The old root, with the machine's mounts, is now stacked under the
	// new one: let it go.
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("new root: detach the old root: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	// Nothing more may be made at the top.
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size="+newRootSize); err != nil {
		return fmt.Errorf("new root read-only: %w", err)
	}
	return nil
}

// dirs are the directories of the new root made (or found) so far: most
// binds share a parent (the /etc files), which os.MkdirAll would stat
// again for each.
type dirs map[string]bool

// make makes dir and its missing parents, 0755.
func (d dirs) make(dir string) error {
	if d[dir] {
		return nil
	}
	err := unix.Mkdir(dir, 0o755)
	if errors.Is(err, unix.ENOENT) {
		if err := d.make(filepath.Dir(dir)); err != nil {
			return err
		}
		err = unix.Mkdir(dir, 0o755)
	}
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	d[dir] = true
	return nil
}

// mountpoint creates path's missing directories (and path itself, as a
// directory or an empty file) inside a cover.
func mountpoint(made dirs, path string, dir bool) error {
	parent := path
	if !dir {
		parent = filepath.Dir(path)
	}
	if err := made.make(parent); err != nil {
		return fmt.Errorf("mount point %s: %w", path, err)
	}
	if !dir {
		// Made without opening it: a descriptor open for writing, even
		// one a concurrent fork of another goroutine holds until its
		// exec closes it, makes the read-only remount of the new root
		// fail with EBUSY.
		if err := unix.Mknod(path, unix.S_IFREG|0o644, 0); err != nil && !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("mount point %s: %w", path, err)
		}
	}
	return nil
}

// readOnlyBind binds path onto itself read-only.
func readOnlyBind(path string) error {
	if _, err := os.Lstat(path); err != nil {
		return err
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("protect %s: %w", path, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	if err := unix.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("protect %s read-only: %w", path, err)
	}
	return nil
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

// newRootSize bounds the new root's tmpfs, which holds mount points.
const newRootSize = "1m"
