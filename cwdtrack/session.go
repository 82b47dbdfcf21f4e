package cwdtrack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
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
}

// Approval is a rule a person approved for the session: the program and
// its subcommand words, or its exact arguments.
type Approval struct {
	Program    string   `json:"program"`
	Subcommand []string `json:"subcommand,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	Exact      bool     `json:"exact,omitempty"` // Argv is the exact argument list (possibly empty)
}

// Store keeps sessions as one JSON file each in Dir.
type Store struct{ Dir string }

var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ErrWorkspace is returned when a session is used with another workspace.
var ErrWorkspace = errors.New("session belongs to another workspace")

// Update loads session id (creating it, rooted at workspace, if new),
// calls fn, and saves the result atomically, all under a lock so that
// concurrent calls of one session do not lose each other's changes. If fn
// returns an error nothing is saved.
func (s Store) Update(id, workspace string, fn func(*Session) error) (*Session, error) {
	if !validID.MatchString(id) {
		return nil, fmt.Errorf("session id %q: use 1 to 64 letters, digits, '.', '_' or '-'", id)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(s.Dir, id+".json")
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	sess, err := s.read(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		sess = &Session{ID: id, Token: NewToken(), Workspace: workspace, Cwd: workspace}
	case err != nil:
		return nil, err
	case sess.Workspace != workspace:
		return nil, fmt.Errorf("%w: %s is rooted at %s, not %s", ErrWorkspace, id, sess.Workspace, workspace)
	}
	if err := fn(sess); err != nil {
		return nil, err
	}
	return sess, s.write(path, sess)
}

func (s Store) read(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sess Session
	if err := json.Unmarshal(data, &sess); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &sess, nil
}

func (s Store) write(path string, sess *Session) error {
	data, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, ".session-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
