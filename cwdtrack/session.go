package cwdtrack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// Session is what vtexec remembers between calls with the same --session
// ID: the workspace it belongs to, its working directory, the approvals a
// person gave "for this session", and the secret token that authenticates
// its cwd markers. It lives in the state directory, outside the
// workspace, so no command can read the token.
type Session struct {
	ID        string     `json:"id"`
	Token     string     `json:"token"`
	Workspace string     `json:"workspace"`
	Cwd       string     `json:"cwd"`
	Approvals []Approval `json:"approvals,omitempty"`
	// Probes counts the session's refusals that signal probing (codes
	// the code list marks as security codes) since it began or was
	// last reset.
	Probes int `json:"probes,omitempty"`
	// Escalated: the session reached its policy's escalate_after, and
	// every command in it needs a person until it is reset.
	Escalated bool `json:"escalated,omitempty"`
}

// Approval is a rule a person approved for the session: the program and
// its subcommand words, or its exact arguments.
type Approval struct {
	Program    string   `json:"program"`
	Subcommand []string `json:"subcommand,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	Exact      bool     `json:"exact,omitempty"` // Argv is the exact argument list (possibly empty)
	// Shaped: Subcommand, Flags, Operands (or AnyOperands) and Bound are
	// what the approval covers, in the terms of the program's approval
	// shape (see execpolicy.PolicyRule.Shaped).
	Shaped      bool     `json:"shaped,omitempty"`
	Flags       []string `json:"flags,omitempty"`
	Operands    []string `json:"operands,omitempty"`
	AnyOperands bool     `json:"any_operands,omitempty"`
	Bound       string   `json:"bound,omitempty"`
}

// Store keeps sessions as one JSON file each in Dir.
type Store struct{ Dir string }

// validID reports whether id is 1 to 64 letters, digits, '.', '_' or
// '-', not starting with one of the last three (the pattern
// ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$, which a regexp matched in ~8 µs of
// every server call).
func validID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ErrWorkspace is returned when a session is used with another workspace.
var ErrWorkspace = errors.New("session belongs to another workspace")

// Update loads session id (creating it, rooted at workspace, if new),
// calls fn, and saves the result atomically, all under a lock so that
// concurrent calls of one session do not lose each other's changes. If fn
// returns an error nothing is saved.
func (s Store) Update(id, workspace string, fn func(*Session) error) (*Session, error) {
	sess, made, err := s.update(id, workspace, fn)
	if made && err == nil {
		// A new session is when old ones are looked for (see sessionIdle).
		s.pruneIfDue(time.Now())
	}
	return sess, err
}

// update is Update; made says it made a new session.
func (s Store) update(id, workspace string, fn func(*Session) error) (_ *Session, made bool, _ error) {
	if !validID(id) {
		return nil, false, fmt.Errorf("session id %q: use 1 to 64 letters, digits, '.', '_' or '-'", id)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, false, err
	}
	path := filepath.Join(s.Dir, id+".json")
	unlock, err := fsutil.Lock(path + ".lock")
	if err != nil {
		return nil, false, err
	}
	defer unlock()

	sess, rid, err := s.readWithIdentity(path)
	var before []byte // the session as read; nil for a new one
	var fresh []byte  // a new session as made, before fn
	switch {
	case errors.Is(err, os.ErrNotExist):
		sess = &Session{ID: id, Token: NewToken(), Workspace: workspace, Cwd: workspace}
		fresh, _ = json.Marshal(sess)
	case err != nil:
		return nil, false, err
	case sess.Workspace != workspace:
		return nil, false, fmt.Errorf("%w: %s is rooted at %s, not %s", ErrWorkspace, id, sess.Workspace, workspace)
	default:
		before, _ = json.Marshal(sess)
	}
	if err := fn(sess); err != nil {
		return nil, false, err
	}
	// Unchanged: nothing to write (most calls only read the session, and
	// a write costs two fsyncs).
	after, err := json.Marshal(sess)
	if before != nil && err == nil && bytes.Equal(before, after) {
		touchIfOld(path, rid, time.Now())
		return sess, false, nil
	}
	// A new session fn left as made is written without waiting for the
	// disk: a crash that loses it loses nothing the next call would not
	// make again (a new session, a new token).
	durable := fresh == nil || err != nil || !bytes.Equal(fresh, after)
	return sess, fresh != nil, s.write(path, sess, durable)
}

// Load returns session id, creating it rooted at workspace if it is new.
// An existing session is read without taking the lock: a session file is
// only ever replaced by a rename, so a read sees one whole version.
func (s Store) Load(id, workspace string) (*Session, error) { return s.LoadCached(nil, id, workspace) }

// MaxSessionBytes is the most a session file may hold.
const MaxSessionBytes = 1 << 20

// read reads a session file: a regular file (no link followed) of at most
// MaxSessionBytes. A file that is not one, or not a session, is a
// *fsutil.FileError.
func (s Store) read(path string) (*Session, error) {
	sess, _, err := s.readWithIdentity(path)
	return sess, err
}

// readWithIdentity is read, with the identity of the file it read.
func (s Store) readWithIdentity(path string) (*Session, fsutil.Identity, error) {
	data, id, err := fsutil.ReadRegular(path, MaxSessionBytes, false)
	if err != nil {
		return nil, id, err
	}
	var sess Session
	if err := json.Unmarshal(data, &sess); err != nil {
		return nil, id, &fsutil.FileError{Path: path, Reason: "is not a session file: " + err.Error()}
	}
	return &sess, id, nil
}

func (s Store) write(path string, sess *Session, durable bool) error {
	data, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic[durable](path, append(data, '\n'), 0o600)
}

// writeAtomic writes a session file, durably or not; tests watch it.
var writeAtomic = map[bool]func(string, []byte, os.FileMode) error{true: fsutil.WriteAtomic, false: fsutil.WriteAtomicNoSync}

// Remove forgets session id: its file and its lock file. A session
// that does not exist is not an error.
func (s Store) Remove(id string) error {
	if !validID(id) {
		return fmt.Errorf("session id %q: use 1 to 64 letters, digits, '.', '_' or '-'", id)
	}
	path := filepath.Join(s.Dir, id+".json")
	if _, err := os.Lstat(path + ".lock"); errors.Is(err, os.ErrNotExist) {
		return nil // never saved: every Update makes the lock file first
	}
	unlock, err := fsutil.Lock(path + ".lock")
	if err != nil {
		return err
	}
	err = os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	// The lock file goes while it is held: a waiting Update then locks a
	// file no longer linked and writes a session that starts anew.
	if rerr := os.Remove(path + ".lock"); err == nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	unlock()
	return err
}

// Cache keeps sessions read by LoadCached, each with the identity of the
// file it was read from. A zero Cache is ready to use; it is safe for
// concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]cachedSession // by file path
}

type cachedSession struct {
	id   fsutil.Identity
	sess Session
}

// cacheAfter is how long a session file must have stood unchanged before
// its identity alone vouches for its content (a file replaced within one
// timestamp tick could keep size and times). A variable for tests.
var cacheAfter = 100 * time.Millisecond

// LoadCached is Load, served from c (if not nil) while the session's
// file is the one it was read from: one stat instead of an open, a read
// and a parse.
func (s Store) LoadCached(c *Cache, id, workspace string) (*Session, error) {
	if !validID(id) {
		return nil, fmt.Errorf("session id %q: use 1 to 64 letters, digits, '.', '_' or '-'", id)
	}
	path := filepath.Join(s.Dir, id+".json")
	now := time.Now()
	if c != nil {
		if sess, ok := c.get(path, workspace, now); ok {
			return sess, nil
		}
	}
	sess, rid, err := s.readWithIdentity(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return s.Update(id, workspace, func(*Session) error { return nil })
	case err != nil:
		return nil, err
	case sess.Workspace != workspace:
		return nil, fmt.Errorf("%w: %s is rooted at %s, not %s", ErrWorkspace, id, sess.Workspace, workspace)
	}
	touchIfOld(path, rid, now)
	// Kept only once it stood unchanged for a while: then no file with
	// its identity but other content can follow it.
	if c != nil && !rid.Recent(now, cacheAfter) {
		c.put(path, rid, *sess)
	}
	return sess, nil
}

// get returns a copy of the session kept for path, if its file is still
// the one it was read from and stood unchanged for a while.
func (c *Cache) get(path, workspace string, now time.Time) (*Session, bool) {
	fid, err := fsutil.Stat(path, false)
	if err != nil || !fid.Exists || fid.Recent(now, cacheAfter) {
		return nil, false
	}
	touchIfOld(path, fid, now)
	c.mu.Lock()
	e, ok := c.m[path]
	c.mu.Unlock()
	if !ok || e.id != fid || e.sess.Workspace != workspace {
		return nil, false
	}
	sess := e.sess
	sess.Approvals = slices.Clone(sess.Approvals)
	return &sess, true
}

// put keeps a copy of sess, read from the file with identity id.
func (c *Cache) put(path string, id fsutil.Identity, sess Session) {
	sess.Approvals = slices.Clone(sess.Approvals)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedSession{}
	}
	if len(c.m) > maxCached {
		clear(c.m)
	}
	c.m[path] = cachedSession{id: id, sess: sess}
}

// maxCached bounds a Cache; past it, the cache starts anew.
const maxCached = 1024
