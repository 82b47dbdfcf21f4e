//go:build !windows

package plan

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// executableFile reports whether p (links followed) is a regular file
// with an execute bit.
func executableFile(p string) bool { return fileKind(p) == executable }

// fileKind says what is at p (links followed), with one stat and none of
// os.Stat's allocations, since every command looks its programs up.
func fileKind(p string) kind {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(p, &st)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EACCES:
			return unreachable
		case err != nil:
			return missing
		case st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Mode&0o111 != 0:
			return executable
		}
		return other
	}
}

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

// blockedSkips counts search directories passed over as blocked, for
// tests.
var blockedSkips atomic.Int64

// maxBlocked bounds the search directories kept as blocked.
const maxBlocked = 64

type blocker struct {
	dir string
	id  dirIdentity
}

type dirIdentity struct {
	dev, ino       uint64
	mode, uid, gid uint32
	ctime          unix.Timespec
}

func identityOf(st *unix.Stat_t) dirIdentity {
	return dirIdentity{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), uid: st.Uid, gid: st.Gid, ctime: st.Ctim}
}

// blockerCheck is what one lookup found of the blockers it looked at.
type blockerCheck struct {
	dirs  []string
	holds []bool
}

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
	holds := false
	if i := slices.Index(c.dirs, b.dir); i >= 0 {
		holds = c.holds[i]
	} else {
		var st unix.Stat_t
		holds = lstat(b.dir, &st) == nil && identityOf(&st) == b.id
		c.dirs, c.holds = append(c.dirs, b.dir), append(c.holds, holds)
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
	var st unix.Stat_t
	at := "/"
	for _, name := range strings.Split(filepath.Clean(dir)[1:], "/") {
		next := filepath.Join(at, name)
		switch err := lstat(next, &st); {
		case err == unix.EACCES:
			if lstat(at, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				return blocker{}, false
			}
			return blocker{dir: at, id: identityOf(&st)}, true
		case err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR:
			return blocker{}, false // missing, a link, or not a directory
		}
		at = next
	}
	return blocker{}, false // reachable
}

func lstat(p string, st *unix.Stat_t) error {
	for {
		if err := unix.Lstat(p, st); err != unix.EINTR {
			return err
		}
	}
}
