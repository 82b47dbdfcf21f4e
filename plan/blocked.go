package plan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// A directory of a search path that this user cannot reach, because a
// directory above it may not be searched (another user's home), holds
// nothing it can run. Instead of a stat beneath it for every name looked
// up, the directory that blocks it is looked at, once per lookup however
// many of the path's directories it blocks: it blocks still while its
// identity is what it was when it blocked (a chmod, a chown or an ACL
// set moves its change time; another directory put in its place, or a
// mount over it, has another device or inode).
var blockedDirs struct {
	sync.Mutex
	m map[string]blocker // search directory -> the directory that blocks it
}

// maxBlocked bounds the search directories kept as blocked.
const maxBlocked = 64

// blockedSkips counts search directories passed over as blocked, for
// tests.
var blockedSkips atomic.Int64

type blocker struct {
	dir string
	id  fsutil.Identity
}

// blockerCheck is what one lookup found of the blockers it looked at:
// whether each still blocks.
type blockerCheck map[string]bool

// blocks reports whether dir is kept as blocked and its blocker, looked
// at once in this lookup, still is what it was. One that changed is
// forgotten: the directory is searched as any other.
func (c *blockerCheck) blocks(dir string) bool {
	blockedDirs.Lock()
	b, ok := blockedDirs.m[dir]
	blockedDirs.Unlock()
	if !ok {
		return false
	}
	holds, looked := (*c)[b.dir]
	if !looked {
		id, err := fsutil.Stat(b.dir, false)
		holds = err == nil && id == b.id
		if *c == nil {
			*c = blockerCheck{}
		}
		(*c)[b.dir] = holds
	}
	if holds {
		blockedSkips.Add(1)
	} else {
		blockedDirs.Lock()
		delete(blockedDirs.m, dir)
		blockedDirs.Unlock()
	}
	return holds
}

// noteBlocked keeps dir as blocked if a directory above it may not be
// searched, found by walking down to it from the root without following
// links (a directory reached through a link is not kept).
func noteBlocked(dir string) {
	b, ok := findBlocker(dir)
	if !ok {
		return
	}
	blockedDirs.Lock()
	defer blockedDirs.Unlock()
	if blockedDirs.m == nil || len(blockedDirs.m) >= maxBlocked {
		blockedDirs.m = map[string]blocker{}
	}
	blockedDirs.m[dir] = b
}

// findBlocker returns the directory above dir that this user may not
// search, as it is now.
func findBlocker(dir string) (blocker, bool) {
	if !filepath.IsAbs(dir) {
		return blocker{}, false
	}
	at := string(filepath.Separator)
	for _, name := range strings.Split(strings.TrimPrefix(filepath.Clean(dir), at), at) {
		next := filepath.Join(at, name)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrPermission):
			id, err := fsutil.Stat(at, false)
			if err != nil || !id.Mode.IsDir() {
				return blocker{}, false
			}
			return blocker{dir: at, id: id}, true
		case err != nil || !fi.IsDir():
			return blocker{}, false // missing, a link, or not a directory
		}
		at = next
	}
	return blocker{}, false // reachable
}
