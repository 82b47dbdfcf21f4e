package cwdtrack

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// Sessions are kept as long as they are used: every conversation of
// every harness makes one, and without pruning the state directory
// keeps them all for good. A session not used for sessionIdle is
// forgotten (Claude Code keeps a conversation 30 days by default); its
// session approvals go with it, and a call that names it again starts
// it anew (a new token, the workspace as cwd).
const sessionIdle = 30 * 24 * time.Hour

// A session's file is touched when it is used and was last written or
// touched more than touchAfter ago, so its time says when it was last
// used, within touchAfter, without a write on every call.
const touchAfter = 24 * time.Hour

// pruneEvery is how often a store is looked through for sessions to
// forget: when a new session is made and the last look (the time of
// the file prunedStamp) is older.
const pruneEvery = 24 * time.Hour

const prunedStamp = ".pruned"

// touchIfOld marks the session file at path used now if its identity id
// says it was last written or touched over touchAfter before now.
func touchIfOld(path string, id fsutil.Identity, now time.Time) {
	if id.Exists && id.Mtime < now.Add(-touchAfter).UnixNano() {
		os.Chtimes(path, now, now)
	}
}

// pruneIfDue forgets the sessions of s not used for sessionIdle, at most
// once every pruneEvery. It returns how many it forgot.
func (s Store) pruneIfDue(now time.Time) int {
	stamp := filepath.Join(s.Dir, prunedStamp)
	fi, err := os.Lstat(stamp)
	switch {
	case os.IsNotExist(err):
		// A new store (or one an earlier vtexec kept): its first
		// look is pruneEvery from now.
		if f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			f.Close()
		}
		return 0
	case err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < pruneEvery:
		return 0
	}
	if err := os.Chtimes(stamp, now, now); err != nil {
		return 0
	}
	forgot := s.prune(now)
	if forgot == maxForget {
		// More to forget: the next new session goes on.
		then := now.Add(-pruneEvery)
		os.Chtimes(stamp, then, then)
	}
	return forgot
}

// maxForget bounds the sessions one prune forgets (each a lock and two
// removals; 10,000 took 0.9 s): a store that kept thousands is emptied
// over the next new sessions, not in one call.
const maxForget = 256

// prune forgets up to maxForget sessions of s not used for
// sessionIdle: each is looked at again under its lock, so a session used
// meanwhile stays.
func (s Store) prune(now time.Time) int {
	d, err := os.Open(s.Dir)
	if err != nil {
		return 0
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return 0
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	forgot := 0
	for _, e := range entries {
		if forgot == maxForget {
			break
		}
		name := e.Name()
		id, lock := strings.CutSuffix(name, ".json.lock")
		if !lock {
			id, _ = strings.CutSuffix(name, ".json")
		}
		switch {
		case id == name || !validID(id):
		case lock && names[id+".json"]:
			// Looked at through its session's file.
		case !lock && !idleSince(filepath.Join(s.Dir, name), now):
		case s.forgetIfIdle(id, now):
			forgot++
		}
	}
	return forgot
}

// forgetIfIdle removes session id's files if neither was used for
// sessionIdle, holding its lock, and says whether it did.
func (s Store) forgetIfIdle(id string, now time.Time) bool {
	path := filepath.Join(s.Dir, id+".json")
	if !idleSince(path, now) || !idleSince(path+".lock", now) {
		return false
	}
	unlock, err := fsutil.Lock(path + ".lock")
	if err != nil {
		return false
	}
	defer unlock()
	if !idleSince(path, now) {
		return false // used meanwhile
	}
	os.Remove(path)
	// The lock file goes while it is held, as Remove does.
	os.Remove(path + ".lock")
	return true
}

// idleSince reports whether the file at path is missing or was last
// changed over sessionIdle before now.
func idleSince(path string, now time.Time) bool {
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return true
	}
	return err == nil && now.Sub(fi.ModTime()) > sessionIdle
}
