package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// Record kinds.
const (
	// KindDecision marks a record of a policy decision (allow, prompt,
	// forbid), made before anything runs.
	KindDecision = "decision"
	// KindExecution marks a record of a finished execution.
	KindExecution = "execution"
	// KindSession marks a change of a session's standing: escalated
	// after repeated refusals that signal probing, or reset by a person.
	KindSession = "session"
)

// Record is one audit line. Fields with zero values are omitted except Time,
// Kind and Decision.
//
// A Record never contains environment values or command output: there is no
// field for them, by design, because both routinely carry secrets.
//
// Strings are encoded as encoding/json encodes them, which escapes every
// control character (so a command containing "\n" or "\x1b" still occupies one line
// and cannot forge or hide lines) and replaces invalid UTF-8 with U+FFFD.
type Record struct {
	// Time is when the record was made, encoded as RFC3339Nano in UTC.
	// Write fills in time.Now().UTC() if it is zero and converts any other
	// value to UTC.
	Time time.Time `json:"time"`
	// Kind is KindDecision, KindExecution or KindSession.
	Kind string `json:"kind"`
	// Session identifies the agent session, if any.
	Session string `json:"session,omitempty"`
	// Cwd is the working directory the command was checked or run in.
	Cwd string `json:"cwd,omitempty"`
	// Command is the command string exactly as given.
	Command string `json:"command,omitempty"`
	// Argv holds the argv of every simple command in Command.
	Argv [][]string `json:"argv,omitempty"`
	// Decision is the outcome of the check (e.g. "allow", "prompt",
	// "forbidden"); it is always present, even when empty.
	Decision string `json:"decision"`
	// Code is the machine-readable reason code, if any.
	Code string `json:"code,omitempty"`
	// Reason and Hint are what the agent was told: why the command was
	// refused or asked about, and what to do instead.
	Reason string `json:"reason,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Rule is the rule that decided, e.g. "allow make test".
	Rule string `json:"rule,omitempty"`
	// RuleFile is the file the deciding rule came from.
	RuleFile string `json:"rule_file,omitempty"`
	// Approval is a person's answer when one was asked: once, session,
	// always or deny.
	Approval string `json:"approval,omitempty"`
	// ExitCode is the command's exit status; nil when it did not run or has
	// no status. A pointer so that exit code 0 is still recorded.
	ExitCode *int `json:"exit_code,omitempty"`
	// DurationMs is the wall-clock run time in milliseconds.
	DurationMs int64 `json:"duration_ms,omitempty"`
	// BytesOut is how many bytes of output the command produced.
	BytesOut int64 `json:"bytes_out,omitempty"`
	// Truncated reports that the output returned to the agent was cut.
	Truncated bool `json:"truncated,omitempty"`
	// TimedOut reports that the command was killed for exceeding its time
	// limit.
	TimedOut bool `json:"timed_out,omitempty"`
}

// Log is an open audit log file. It is safe for concurrent use by multiple
// goroutines, and several processes may append to the same file at once.
//
// A nil *Log is a valid, disabled log: Write and Close on it do nothing and
// return nil, so callers can hold a nil *Log when auditing is turned off.
type Log struct {
	mu sync.Mutex // serialises goroutines; flock is per open file description
	f  *os.File   // nil after Close
	id fsutil.Identity
}

// Open opens the audit log at path for appending, creating the parent
// directories (mode 0700) and the file (mode 0600) if they do not exist.
// Existing directories and files keep their permissions. The log must be
// a regular file: a link is followed (the path is the user's choice), but
// a FIFO or device it leads to is refused (as a *fsutil.FileError), and
// opening never blocks.
func Open(path string) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: create log directory: %w", err)
	}
	f, id, err := fsutil.OpenRegular(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600, true)
	if err != nil {
		return nil, fmt.Errorf("audit: open log: %w", err)
	}
	return &Log{f: f, id: id}, nil
}

// WritesTo reports whether l is open and path leads (links followed, as
// Open follows them) to the file it writes: a log kept open between
// requests is opened again once its file is moved away, removed or
// replaced. Where the system gives files no identity, never.
func (l *Log) WritesTo(path string) bool {
	if l == nil || l.id.Ino == 0 {
		return false
	}
	id, err := fsutil.Stat(path, true)
	if err != nil || !id.Exists || id.Dev != l.id.Dev || id.Ino != l.id.Ino {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f != nil
}

// Write appends r as one JSON line. The line is written with a single
// write(2) call while holding an exclusive flock on the file, so concurrent
// writers in this and other processes never interleave. A short write is
// reported as an error wrapping io.ErrShortWrite, and the partial line is
// cut off the file again. Write on a nil *Log returns nil; Write after Close returns an
// error wrapping os.ErrClosed.
func (l *Log) Write(r Record) error {
	if l == nil {
		return nil
	}
	line, err := encode(r)
	if err != nil {
		return err
	}
	return l.write(line)
}

// Line is one record encoded as Write writes it, for WriteLines.
type Line []byte

// Encode returns r as the line Write would write for it.
func Encode(r Record) (Line, error) { return encode(r) }

// WriteLines appends lines in their order with one write(2) call under
// the lock, as Write appends one: a stream of decisions is recorded with
// one call for many. They land together or not at all: a short write
// cuts all of them off the file again.
func (l *Log) WriteLines(lines ...Line) error {
	if l == nil || len(lines) == 0 {
		return nil
	}
	if len(lines) == 1 {
		return l.write(lines[0])
	}
	n := 0
	for _, line := range lines {
		n += len(line)
	}
	all := make([]byte, 0, n)
	for _, line := range lines {
		all = append(all, line...)
	}
	return l.write(all)
}

// write writes whole encoded lines with one call.
func (l *Log) write(lines []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("audit: write: %w", os.ErrClosed)
	}
	rc, err := l.f.SyscallConn()
	if err != nil {
		return fmt.Errorf("audit: write: %w", err)
	}
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		werr = writeLocked(fd, lines)
		return true
	}); err != nil {
		return fmt.Errorf("audit: write: %w", err)
	}
	return werr
}

// encode returns r as one JSON line ending in "\n", with Time defaulted and
// converted to UTC. HTML escaping is off so commands stay readable; control
// characters are still escaped, so the result never contains a raw newline
// before its end.
func encode(r Record) ([]byte, error) {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	r.Time = r.Time.UTC()
	if y := r.Time.Year(); y < 0 || y > 9999 {
		return nil, errors.New("audit: encode: the time is outside the years 0 to 9999")
	}
	return append(appendRecord(make([]byte, 0, 512), r), '\n'), nil
}

// Close closes the log file. Close on a nil *Log returns nil, and closing an
// already closed Log returns nil.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("audit: close: %w", err)
	}
	return nil
}

// DefaultPath returns the default audit log location:
// $XDG_STATE_HOME/vtexec/audit.jsonl when XDG_STATE_HOME is set to an
// absolute path, else ~/.local/state/vtexec/audit.jsonl. A relative
// XDG_STATE_HOME is ignored, as the XDG Base Directory specification
// requires.
func DefaultPath() (string, error) {
	if dir := os.Getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "vtexec", "audit.jsonl"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("audit: default path: %w", err)
	}
	return filepath.Join(home, ".local", "state", "vtexec", "audit.jsonl"), nil
}
