//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A box's mount namespace changes what its programs see of the file
// system, where Landlock (ABI < 9) cannot reach:
//
//   - directories that hold other programs' unix sockets (/run, /tmp,
//     /var/tmp, the user's home …) are covered with an empty tmpfs, with
//     the box's own directories bound back in, so no socket of the
//     machine can be connected to by path;
//   - protected paths inside the workspace are bound read-only onto
//     themselves: they cannot be changed or removed, whatever Landlock
//     grants on the workspace. A protected directory name that does not
//     exist gets an empty placeholder while the box lives, so it cannot
//     be created either (see placeholders).
//
// It is made once per box, by the first thread that starts a program
// there, and entered with setns by the threads of the later ones.

// socketDirs are covered in the box: where sockets of daemons, agents
// and desktops live.
func socketDirs() []string {
	dirs := []string{"/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm", "/var/lib/docker", "/root"}
	if h, err := os.UserHomeDir(); err == nil && h != "/" && !slices.Contains(dirs, h) {
		dirs = append(dirs, h)
	}
	return dirs
}

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
	// A procfs of the box's own that shows only the processes the box
	// may trace: Landlock keeps those to its own, so other processes'
	// command lines and status are not even listed.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "hidepid=ptraceable"); err != nil {
		return fmt.Errorf("mount a private /proc: %w", err)
	}
	keep := append(append([]string{}, b.spec.ReadWrite...), b.spec.ReadOnly...)
	for _, dir := range socketDirs() {
		if err := cover(dir, keep); err != nil {
			return err
		}
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
	return nil
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

// cover mounts an empty tmpfs on dir, unless dir is or lies below a path
// to keep, and binds back every path to keep that lies below dir.
func cover(dir string, keep []string) error {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return nil // absent, or a link to a directory covered on its own
	}
	var below []string
	for _, k := range keep {
		if within(dir, k) {
			return nil // the box needs all of dir
		}
		if within(k, dir) {
			below = append(below, k)
		}
	}
	// Hold what is bound back before it is covered.
	fds := make([]int, len(below))
	for i, k := range below {
		fd, err := unix.Open(k, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			for _, f := range fds[:i] {
				unix.Close(f)
			}
			return fmt.Errorf("hold %s: %w", k, err)
		}
		fds[i] = fd
	}
	defer func() {
		for _, f := range fds {
			unix.Close(f)
		}
	}()
	const flags = unix.MS_NOSUID | unix.MS_NODEV
	if len(below) == 0 {
		if err := unix.Mount("tmpfs", dir, "tmpfs", flags|unix.MS_RDONLY, "mode=0755,size=4k"); err != nil {
			return fmt.Errorf("cover %s: %w", dir, err)
		}
		return nil
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", flags, "mode=0755,size=1m"); err != nil {
		return fmt.Errorf("cover %s: %w", dir, err)
	}
	for i, k := range below {
		isDir := true
		var st unix.Stat_t
		if unix.Fstat(fds[i], &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			isDir = false
		}
		if err := mountpoint(k, isDir); err != nil {
			return err
		}
		src := "/proc/self/fd/" + strconv.Itoa(fds[i])
		if err := unix.Mount(src, k, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s back: %w", k, err)
		}
	}
	// Nothing more may be made in the cover itself.
	return unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m")
}

// mountpoint creates path's missing directories (and path itself, as a
// directory or an empty file) inside a cover.
func mountpoint(path string, dir bool) error {
	parent := path
	if !dir {
		parent = filepath.Dir(path)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("mount point %s: %w", path, err)
	}
	if !dir {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("mount point %s: %w", path, err)
		}
		f.Close()
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
