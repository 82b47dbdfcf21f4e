package vtexec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/runner"
	"github.com/vtexec/vtexec/workspace"
)

// Defaults for Run.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 64 << 10
)

// Request is one command to check or run.
type Request struct {
	// Command is the shell command string. Argv, if set instead, is taken
	// as one command with exactly these arguments.
	Command string
	Argv    []string
	// Workspace is the root directory; Cwd, if set, is where the command
	// starts, relative to the root or absolute inside it.
	Workspace string
	Cwd       string
	Timeout   time.Duration // Run only; 0 means DefaultTimeout
	MaxOutput int           // Run only; bytes kept per stream; 0 means DefaultMaxOutput
}

// Decision is the verdict on a request, shaped for JSON.
type Decision struct {
	Cmd      string    `json:"cmd"`
	Decision string    `json:"decision"`
	Code     string    `json:"code"`
	Reason   string    `json:"reason"`
	Hint     string    `json:"hint"`
	Commands []Command `json:"commands"`
}

// Command is one simple command of a checked plan.
type Command struct {
	Argv    []string `json:"argv"`
	Program string   `json:"program,omitempty"`
	Builtin string   `json:"builtin,omitempty"`
}

// Allowed reports whether the decision lets the command run.
func (d Decision) Allowed() bool { return d.Decision == string(execpolicy.Allow) }

// Result is what Run reports, shaped for JSON.
type Result struct {
	Decision   Decision `json:"decision"`
	ExitCode   int      `json:"exit_code"`
	Stdout     string   `json:"stdout"`
	Stderr     string   `json:"stderr"`
	Truncated  bool     `json:"truncated"`
	TimedOut   bool     `json:"timed_out"`
	DurationMs int64    `json:"duration_ms"`
	Cwd        string   `json:"cwd"`
}

// ExitRefused is the exit code reported for a command that did not run.
const ExitRefused = 126

// RequestError is a request vtexec cannot act on: a missing workspace, a
// cwd outside it, both or neither of Command and Argv.
type RequestError struct {
	Code   string // always "bad_request"
	Reason string
	Hint   string
}

func (e *RequestError) Error() string { return e.Code + ": " + e.Reason }

func badRequest(hint, format string, args ...any) *RequestError {
	return &RequestError{Code: "bad_request", Reason: fmt.Sprintf(format, args...), Hint: hint}
}

// Check decides on req without running anything.
func Check(ctx context.Context, req Request) (Decision, error) {
	d, _, _, err := check(req)
	return d, err
}

func check(req Request) (Decision, *plan.Plan, *workspace.Workspace, error) {
	src, err := source(req)
	if err != nil {
		return Decision{}, nil, nil, err
	}
	ws, err := openWorkspace(req)
	if err != nil {
		return Decision{}, nil, nil, err
	}
	v := execpolicy.Check(src, ws)
	return decision(src, v), v.Plan, ws, nil
}

// Run checks req and, if it is allowed, runs it. A refused command is not
// an error: the Result carries the decision and exit code ExitRefused.
func Run(ctx context.Context, req Request) (Result, error) {
	d, p, ws, err := check(req)
	if err != nil {
		return Result{}, err
	}
	if !d.Allowed() {
		return Result{Decision: d, ExitCode: ExitRefused, Cwd: ws.Cwd()}, nil
	}
	res, err := runner.Run(ctx, p, ws, runner.Options{
		Timeout:   orDefault(req.Timeout, DefaultTimeout),
		MaxOutput: orDefault(req.MaxOutput, DefaultMaxOutput),
	})
	if err != nil {
		return Result{Decision: d, Cwd: ws.Cwd()}, err
	}
	return Result{
		Decision:   d,
		ExitCode:   res.ExitCode,
		Stdout:     res.Stdout,
		Stderr:     res.Stderr,
		Truncated:  res.Truncated,
		TimedOut:   res.TimedOut,
		DurationMs: res.Duration.Milliseconds(),
		Cwd:        res.Cwd,
	}, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// source returns the command string to parse. An argv is quoted word by
// word, so parsing it gives back exactly those words.
func source(req Request) (string, error) {
	switch {
	case req.Command != "" && len(req.Argv) > 0:
		return "", badRequest("send either a command string or an argv array", "both command and argv given")
	case len(req.Argv) > 0:
		words := make([]string, len(req.Argv))
		for i, a := range req.Argv {
			q, err := syntax.Quote(a, syntax.LangBash)
			if err != nil {
				return "", badRequest("remove NUL bytes and invalid text from the arguments", "argv[%d] cannot be passed: %v", i, err)
			}
			words[i] = q
		}
		return strings.Join(words, " "), nil
	case strings.TrimSpace(req.Command) == "":
		return "", badRequest("send a command to run", "empty command")
	}
	return req.Command, nil
}

func openWorkspace(req Request) (*workspace.Workspace, error) {
	dir := req.Workspace
	if dir == "" {
		dir = "."
	}
	ws, err := workspace.New(dir)
	if err != nil {
		return nil, badRequest("pass --workspace with an existing project directory", "%v", err)
	}
	if req.Cwd != "" {
		if err := ws.Chdir(req.Cwd); err != nil {
			var be *workspace.BoundaryError
			if errors.As(err, &be) {
				return nil, badRequest(be.Hint(), "cwd: %v", err)
			}
			return nil, badRequest("use a cwd inside the workspace", "cwd: %v", err)
		}
	}
	return ws, nil
}

func decision(src string, v *execpolicy.Verdict) Decision {
	d := Decision{Cmd: src, Decision: string(v.Decision), Code: v.Code, Reason: v.Reason, Hint: v.Hint, Commands: []Command{}}
	if v.Plan != nil {
		for _, c := range v.Plan.Commands() {
			d.Commands = append(d.Commands, Command{Argv: c.Argv, Program: c.Program, Builtin: c.Builtin})
		}
	}
	return d
}
