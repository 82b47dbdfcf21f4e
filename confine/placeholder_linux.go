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

// placeholders holds the shared lock for the box's life.
type placeholders struct {
	lock int
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
	for _, p := range protected {
		if err := placeholder(p); err != nil {
			unix.Close(fd)
			return nil, err
		}
	}
	return &placeholders{lock: fd}, nil
}

// placeholder creates p if it is a missing directory name: an empty
// directory, which git and most tools do not show. A missing file name
// gets none: an empty .envrc or .mcp.json would show in git status and
// could upset the tools that read it; the validators guard those names.
func placeholder(p Protected) error {
	if !p.Dir {
		return nil
	}
	if err := unix.Mkdir(p.Path, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("placeholder %s: %w", p.Path, err)
	}
	return nil
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
		if p.Dir {
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
