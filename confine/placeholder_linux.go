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
// read-only: a program could otherwise create .claude/settings.json. A
// placeholder is an empty directory, which git and most tools do not
// show; it is made the first time a box needs it and then left in
// place, so a box costs no directory writes once a workspace has them.
// It carries a mark, so a placeholder can be told from a person's own
// empty directory. A missing file name gets none: an empty .envrc or
// .mcp.json would show in git status and could upset the tools that
// read it; the validators guard those names.

// PlaceholderMark is the extended attribute set on a placeholder.
const PlaceholderMark = "user.vtexec.placeholder"

// makePlaceholders creates the missing protected directory names. It
// refuses a protected name that is a symbolic link: the link itself
// could be replaced, and what it leads to is written under another name.
func makePlaceholders(protected []Protected) error {
	for _, p := range protected {
		fi, err := os.Lstat(p.Path)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link; a protected name must be a plain file or directory (a person can replace the link with what it points to)", p.Path)
		case err == nil || !p.Dir:
			continue
		}
		if err := unix.Mkdir(p.Path, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("placeholder %s: %w", p.Path, err)
		}
		unix.Lsetxattr(p.Path, PlaceholderMark, []byte("1"), 0) // best effort: the mark only informs
	}
	return nil
}
