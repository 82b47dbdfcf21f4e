//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Placeholders stand in for protected names that do not exist yet, so
// that the box's mount namespace has something to bind read-only and no
// program can create .claude/settings.json even for a moment. They are
// an opt-in (Spec.Placeholders for directories, Spec.PlaceholderFiles
// for files): they show in every ls -a, an empty .idea or .vscode
// changes how an IDE treats the folder, and an empty .envrc or .mcp.json
// shows in git status. By default a protected name that is missing is
// left to vtexec, which moves out of the workspace what a run makes
// there (Disarm). A placeholder, made the first time a box needs it and
// then left in place, carries a mark, so it can be told from a person's
// own empty file or directory, and removed when no longer asked for.
//
// Placeholders are made beneath the read-write directory that holds
// them and never through a symbolic link: vtexec makes them as whoever
// runs it, before any command, and a project's policy names them.

// PlaceholderMark is the extended attribute set on a placeholder.
const PlaceholderMark = "user.vtexec.placeholder"

// makePlaceholders creates the missing protected names spec allows. It
// refuses a protected name that is a symbolic link: the link itself
// could be replaced, and what it leads to is written under another name.
func makePlaceholders(spec Spec) error {
	for _, p := range spec.Protected {
		fi, err := os.Lstat(p.Path)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link; a protected name must be a plain file or directory (a person can replace the link with what it points to)", p.Path)
		case err == nil || (p.Dir && !spec.Placeholders) || (!p.Dir && !spec.PlaceholderFiles):
			continue
		}
		if err := makePlaceholder(spec.ReadWrite, p); err != nil {
			return fmt.Errorf("placeholder %s: %w", p.Path, err)
		}
	}
	return nil
}

// removePlaceholders removes the empty, marked placeholders of spec's
// protected names that spec no longer asks for: those an earlier box
// made. A person's own empty file or directory carries no mark and
// stays; a placeholder something was put in is no longer empty and
// stays too.
func removePlaceholders(spec Spec) {
	for _, p := range spec.Protected {
		if (p.Dir && spec.Placeholders) || (!p.Dir && spec.PlaceholderFiles) {
			continue
		}
		fi, err := os.Lstat(p.Path)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.IsDir() != p.Dir || (!p.Dir && fi.Size() != 0) {
			continue
		}
		buf := make([]byte, 8)
		if n, err := unix.Lgetxattr(p.Path, PlaceholderMark, buf); err != nil || n == 0 {
			continue
		}
		if p.Dir {
			unix.Rmdir(p.Path) // fails unless empty
		} else {
			unix.Unlink(p.Path)
		}
	}
}

// makePlaceholder makes p inside the read-write directory that holds
// it, resolving its parent beneath that directory with no link allowed
// on the way. A parent that does not exist, or a link on the way,
// leaves p missing.
func makePlaceholder(roots []string, p Protected) error {
	var root, rel string
	for _, r := range roots {
		if x, err := filepath.Rel(r, p.Path); err == nil && filepath.IsLocal(x) {
			root, rel = r, x
			break
		}
	}
	if root == "" {
		return errors.New("not inside a directory commands may write")
	}
	parent, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer func() { unix.Close(parent) }()
	if dir := filepath.Dir(rel); dir != "." {
		fd, err := unix.Openat2(parent, dir, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		switch {
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
			return nil // no parent, or a link on the way: left missing, and reported so
		case err != nil:
			return err
		}
		unix.Close(parent)
		parent = fd
	}
	name := filepath.Base(rel)
	var fd int
	if p.Dir {
		if err := unix.Mkdirat(parent, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return err
		}
		fd, err = unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	} else {
		fd, err = unix.Openat(parent, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if errors.Is(err, unix.EEXIST) {
			return nil // made meanwhile: someone's own
		}
	}
	if err != nil {
		return err
	}
	unix.Fsetxattr(fd, PlaceholderMark, []byte("1"), 0) // best effort: the mark only informs
	return unix.Close(fd)
}
