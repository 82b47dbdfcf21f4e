//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Placeholders stand in for protected directory names that do not exist
// yet, so that the box's mount namespace has something to bind
// read-only: a program could otherwise create .claude/settings.json.
// Boxes of one workspace share a lock file, held shared while a box
// lives; the box that can take it exclusively on closing is the last,
// and removes the placeholders that are still empty.

// placeholderMark marks a directory vtexec made as a placeholder, so the
// last box removes only those, never a person's own empty directory.
const placeholderMark = "user.vtexec.placeholder"

// placeholders holds the shared lock for the box's life.
type placeholders struct {
	lock    int
	created []string // placeholders this box made that could not be marked
}

// makePlaceholders takes the shared lock and creates the missing
// protected names. It refuses a protected name that is a symbolic link:
// the link itself could be replaced, and what it leads to is written
// under another name.
func makePlaceholders(lockPath string, protected []Protected) (*placeholders, error) {
	for _, p := range protected {
		if fi, err := os.Lstat(p.Path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link; a protected name must be a plain file or directory (a person can replace the link with what it points to)", p.Path)
		}
	}
	fd, err := unix.Open(lockPath, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("placeholder lock: %w", err)
	}
	if err := flock(fd, unix.LOCK_SH); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("placeholder lock: %w", err)
	}
	ph := &placeholders{lock: fd}
	for _, p := range protected {
		if err := ph.placeholder(p); err != nil {
			unix.Close(fd)
			return nil, err
		}
	}
	return ph, nil
}

// placeholder creates p if it is a missing directory name: an empty
// directory, which git and most tools do not show. A missing file name
// gets none: an empty .envrc or .mcp.json would show in git status and
// could upset the tools that read it; the validators guard those names.
func (ph *placeholders) placeholder(p Protected) error {
	if !p.Dir {
		return nil
	}
	err := unix.Mkdir(p.Path, 0o755)
	switch {
	case errors.Is(err, unix.EEXIST):
		return nil
	case err != nil:
		return fmt.Errorf("placeholder %s: %w", p.Path, err)
	}
	if unix.Lsetxattr(p.Path, placeholderMark, []byte("1"), 0) != nil {
		ph.created = append(ph.created, p.Path)
	}
	return nil
}

// isPlaceholder reports whether dir is a placeholder vtexec made.
func (ph *placeholders) isPlaceholder(dir string) bool {
	buf := make([]byte, 1)
	if n, err := unix.Lgetxattr(dir, placeholderMark, buf); err == nil && n == 1 {
		return true
	}
	for _, c := range ph.created {
		if c == dir {
			return true
		}
	}
	return false
}

// release drops the shared lock; the last box removes the placeholders
// that are still empty.
func (ph *placeholders) release(protected []Protected) {
	if ph == nil || ph.lock < 0 {
		return
	}
	defer func() {
		unix.Close(ph.lock)
		ph.lock = -1
	}()
	if flock(ph.lock, unix.LOCK_UN) != nil || flock(ph.lock, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // another box of the workspace still lives
	}
	for _, p := range protected {
		if p.Dir && ph.isPlaceholder(p.Path) {
			unix.Rmdir(p.Path) // only if still empty
		}
	}
}

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
