// Package serveopts is vtexec serve's command line: vtexec reads it to
// answer --help and refuse mistakes at once, and vtexec-serve, the MCP
// server vtexec serve runs, reads it again to serve.
package serveopts

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
)

// Defaults of the server's limits.
const (
	// DefaultMaxJobs is how many background commands may run at once.
	DefaultMaxJobs = 8
	// DefaultMaxCalls is how many requests of one connection are handled
	// at once; the next waits, unread, until one is answered.
	DefaultMaxCalls = 32
	// DefaultAskTimeout is how long a person has to answer an
	// elicitation.
	DefaultAskTimeout = 2 * time.Minute
)

// Options are vtexec serve's flags.
type Options struct {
	Workspace  string
	AuditLog   string
	JSONL      bool
	JSONLAsks  bool
	MaxJobs    int
	MaxCalls   int
	AskTimeout time.Duration
}

// Define defines the flags on fs and returns where they are stored.
func Define(fs *flag.FlagSet) *Options {
	o := &Options{}
	fs.StringVar(&o.Workspace, "workspace", ".", "workspace root")
	fs.StringVar(&o.AuditLog, "audit", "", `audit log file ("off" to disable)`)
	fs.BoolVar(&o.JSONL, "jsonl", false, "the same tools as JSON lines: {\"id\",\"tool\",\"arguments\"} in, {\"id\",\"is_error\",\"text\",\"result\"} out")
	fs.BoolVar(&o.JSONLAsks, "ask", false, `with --jsonl: ask about commands that need a person with {"ask": …} lines, answered by {"answer": …} lines`)
	fs.IntVar(&o.MaxJobs, "max-jobs", DefaultMaxJobs, "how many background commands (shell with background: true) may run at once")
	fs.IntVar(&o.MaxCalls, "max-calls", DefaultMaxCalls, "how many requests of the connection are handled at once; the next waits, unread, until one is answered")
	fs.DurationVar(&o.AskTimeout, "ask-timeout", DefaultAskTimeout, "how long a person has to answer an approval asked by elicitation")
	return o
}

// CheckWorkspace fails at start, not at the first call, when the
// workspace is not a directory.
func (o *Options) CheckWorkspace() error {
	if fi, err := os.Stat(o.Workspace); err != nil || !fi.IsDir() {
		return &vtexec.RequestError{Code: codes.BadRequest, Reason: fmt.Sprintf("workspace %s is not a directory", o.Workspace),
			Hint: "pass --workspace with an existing project directory"}
	}
	return nil
}

// Validate says what is wrong with flags parsed into o, with args the
// words left after them; nil if nothing is.
func (o *Options) Validate(args []string) error {
	switch {
	case len(args) > 0:
		return errors.New("serve takes no arguments: MCP requests come on stdin")
	case o.JSONLAsks && !o.JSONL:
		return errors.New("--ask goes with --jsonl (an MCP client is asked by elicitation)")
	case o.MaxJobs < 1:
		return errors.New("--max-jobs must be at least 1")
	case o.MaxCalls < 1:
		return errors.New("--max-calls must be at least 1")
	}
	return nil
}
