// Package interpreter runs a command string whose words are known only
// when it runs — command substitution, $?, variables, while read, case —
// in mvdan.cc/sh's interpreter, with vtexec's handlers at every seam:
// each simple command is checked with its final argv and the
// interpreter's working directory as it is reached, and runs only if the
// check allows it; every builtin is either modelled or refused; every
// file the interpreter opens for a redirect goes through the caller's
// opener; the named pipes of <(…) are made in a directory the caller
// gives, which the commands may read and not change; globs read only
// inside the workspace. A refused command stops
// the whole request there, as set -e would: nothing after it runs, and
// the outcome says which command it was and what ran before it.
//
// The package knows nothing of validators or the kernel box: the engine
// gives it a Check and an Exec (which runs the command in the box) and
// an Open (which opens beneath the workspace without following links).
package interpreter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/shpattern"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Verdict is the check's answer for one command.
type Verdict struct {
	Allow              bool
	Code, Reason, Hint string
	// Prepared is what the check made of the command (its plan), handed
	// to Exec as it is.
	Prepared any
}

// Hooks connect the interpreter to the engine. The commands of a
// pipeline run at the same time, so each hook may be called concurrently.
type Hooks struct {
	// Check decides argv, to run in dir with the environment settings
	// env (KEY=VALUE, from assignments before the command).
	Check func(ctx context.Context, argv []string, dir string, env []string) Verdict
	// Exec runs what Check prepared for an allowed command with the
	// interpreter's streams, and returns its exit status.
	Exec func(ctx context.Context, prepared any, stdin io.Reader, stdout, stderr io.Writer) (int, error)
	// Open opens a redirect's file (an absolute path) beneath the
	// workspace, never following a link; a *Stop error refuses the
	// place, which ends the request.
	Open func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error)
	// Inside reports whether an absolute path lies in the workspace: the
	// directories globs may read and cd may enter.
	Inside func(path string) bool
	// Builtin decides a shell builtin that shares its name with a
	// program (echo, printf, test, true, pwd, command -v, type): allowed
	// where the builtin does what the program vtexec validates does. Nil
	// refuses them all.
	Builtin func(ctx context.Context, argv []string, dir string) Verdict
}

// Limits bound what one request may do.
type Limits struct {
	// Commands is how many simple commands (builtins included) may run.
	Commands int
	// SubstOutput is how many bytes the commands in one command
	// substitution may write.
	SubstOutput int64
	// Words is how many arguments one command may have once expanded.
	Words int
	// Iterations is how many times, all loops together, a loop's body
	// may start.
	Iterations int
}

// DefaultLimits are the limits a request gets when none are given.
var DefaultLimits = Limits{Commands: 10000, SubstOutput: 1 << 20, Words: 4096, Iterations: 100000}

// Codes of the refusals the interpreter makes itself.
const (
	CodeBuiltin     = codes.ShellBuiltin
	CodeCommands    = codes.CommandLimit
	CodeIterations  = codes.LoopLimit
	CodeSubstOutput = codes.SubstitutionLimit
	CodeWords       = codes.WordLimit
)

// Stop is the command that ended the request, and why.
type Stop struct {
	Argv               []string
	Code, Reason, Hint string
}

func (s *Stop) Error() string { return s.Reason }

// Outcome is how a request ended.
type Outcome struct {
	// Exit is the shell's exit status; 126 when it was stopped.
	Exit int
	// Stopped is the refused command, if one ended the request.
	Stopped *Stop
	// Ran are the commands that ran, in the order they started.
	Ran [][]string
	// Dir is the working directory the request ended in.
	Dir string
}

// Request is what to run. The commands of a pipeline write to Stdout and
// Stderr at the same time: both must be safe for concurrent use.
type Request struct {
	File   *syntax.File
	Dir    string
	Env    []string // the scrubbed environment, KEY=VALUE
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Limits Limits
	// PipeDir is where the named pipes of <(…) are made: a directory
	// only vtexec writes, which the commands may read.
	PipeDir string
}

// Refusal is why a request cannot run in the interpreter: a form whose
// effect it does not model, or models otherwise than bash.
type Refusal struct{ Code, Reason, Hint string }

// Unsupported returns why f cannot run in the interpreter, or nil: such
// forms are refused before anything runs.
func Unsupported(f *syntax.File) *Refusal {
	var r *Refusal
	refuse := func(code, what, hint string) {
		r = &Refusal{Code: code, Reason: what + " is not run by vtexec's interpreter", Hint: hint}
	}
	const oneByOne = "write the commands out one by one"
	syntax.Walk(f, func(n syntax.Node) bool {
		if r != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.FuncDecl:
			refuse(codes.ControlFlow, "a function definition", oneByOne)
		case *syntax.CoprocClause:
			refuse(codes.Background, "coproc", oneByOne)
		case *syntax.ProcSubst:
			// <(…) is a pipe the program reads; >(…) one it would write,
			// in a place the box keeps read-only.
			if x.Op != syntax.CmdIn {
				refuse(codes.Substitution, "process substitution into a command (>(…))", "write the data to a file inside the workspace, then run the command on it")
			}
		case *syntax.Stmt:
			if x.Background {
				refuse(codes.Background, "a background job (&)", "run it in the foreground; long jobs end at the timeout")
			}
		case *syntax.DeclClause:
			if why := declaration(x); why != "" {
				refuse(codes.Assignment, why, "pass values as arguments, or as NAME=value before one command")
			}
		case *syntax.ParamExp:
			if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps {
				refuse(codes.Expansion, "${NAME@…}", "print the value with printf %q")
			}
			if x.Param != nil && (x.Param.Value == "_" || x.Param.Value == "0" || strings.HasPrefix(x.Param.Value, "BASH")) {
				refuse(codes.Expansion, "$"+x.Param.Value+", which names bash's own state,", "write the value out")
			}
		case *syntax.CallExpr:
			if len(x.Args) >= 2 && x.Args[0].Lit() == "printf" && strings.HasPrefix(x.Args[1].Lit(), "-v") {
				refuse(codes.ShellBuiltin, "printf -v", "assign the output of a substitution: x=$(printf …)")
			}
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				if w, ok := e.(*syntax.Word); ok && quoted(w) {
					refuse(codes.Expansion, "let with a quoted expression", "write ((n += 3)) or let n+=3")
				}
			}
		case *syntax.TimeClause:
			refuse(codes.ControlFlow, "time", oneByOne)
		case *syntax.ForClause:
			if x.Select {
				refuse(codes.ControlFlow, "select", oneByOne)
			}
		}
		return true
	})
	return r
}

// declaration says why a declare, local or typeset is not run, or "":
// only one that declares the interpreter's own variables (arrays,
// associative arrays) runs; one that exports, makes
// read-only, prints or touches functions does not.
func declaration(d *syntax.DeclClause) string {
	v := d.Variant.Value
	if v != "local" && v != "declare" && v != "typeset" {
		return v + ", which changes what later programs receive,"
	}
	for _, a := range d.Args {
		if a.Name != nil || a.Value == nil {
			continue
		}
		flag := a.Value.Lit()
		if !strings.HasPrefix(flag, "-") {
			return v + " with a computed flag"
		}
		if strings.Trim(flag[1:], "aA") != "" {
			return v + " " + flag + " (only -a and -A are)"
		}
	}
	return ""
}

// ProcessSubstitution reports whether f has a <(…): it needs
// Request.PipeDir.
func ProcessSubstitution(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		_, ok := n.(*syntax.ProcSubst)
		found = found || ok
		return !found
	})
	return found
}

// quoted reports whether w has a quoted part.
func quoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// run is the state of one request.
type run struct {
	hooks  Hooks
	limits Limits
	stdout io.Writer
	base   map[string]string // the environment the request started with

	mu         sync.Mutex
	commands   int
	iterations int
	stopped    *Stop
	ran        [][]string
	cancel     context.CancelFunc
}

// Run runs the request. An error is vtexec's own failure; a refused
// command is an Outcome with Stopped set.
func Run(ctx context.Context, req Request, hooks Hooks) (out Outcome, err error) {
	for _, refused := range []func(*syntax.File) *Refusal{Unsupported, RunTimePatterns} {
		if r := refused(req.File); r != nil {
			return Outcome{Exit: 126, Dir: req.Dir, Stopped: &Stop{Code: r.Code, Reason: r.Reason, Hint: r.Hint}}, nil
		}
	}
	lim := req.Limits
	if lim.Commands <= 0 {
		lim.Commands = DefaultLimits.Commands
	}
	if lim.SubstOutput <= 0 {
		lim.SubstOutput = DefaultLimits.SubstOutput
	}
	if lim.Words <= 0 {
		lim.Words = DefaultLimits.Words
	}
	if lim.Iterations <= 0 {
		lim.Iterations = DefaultLimits.Iterations
	}
	countIterations(req.File)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &run{hooks: hooks, limits: lim, stdout: req.Stdout, base: map[string]string{}, cancel: cancel}
	defer stopOnUnreadablePattern(r, req.Dir, &out, &err)
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			r.base[k] = v
		}
	}
	env := req.Env
	if req.PipeDir != "" {
		// interp makes the pipes in $TMPDIR.
		env = append(slices.Clone(env), "TMPDIR="+req.PipeDir)
		r.base["TMPDIR"] = req.PipeDir
	} else if ProcessSubstitution(req.File) {
		return Outcome{Exit: 126, Dir: req.Dir, Stopped: &Stop{Code: codes.Substitution, Reason: "process substitution needs a directory for its pipes, and none was given", Hint: "write the data to a file inside the workspace and pass the file"}}, nil
	}
	if s := unreadableEnv(env); s != nil {
		return Outcome{Exit: 126, Dir: req.Dir, Stopped: s}, nil
	}
	runner, err := interp.New(
		interp.Env(expand.ListEnviron(env...)),
		interp.Dir(req.Dir),
		interp.StdIO(req.Stdin, req.Stdout, req.Stderr),
		interp.CallHandler(r.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return r.exec }),
		interp.OpenHandler(r.open),
		interp.ReadDirHandler2(r.readDir),
		interp.StatHandler(r.stat),
	)
	if err != nil {
		return Outcome{}, err
	}
	err = runner.Run(ctx, req.File)
	out = Outcome{Dir: runner.Dir}
	r.mu.Lock()
	out.Ran, out.Stopped = r.ran, r.stopped
	r.mu.Unlock()
	var st interp.ExitStatus
	switch {
	case out.Stopped != nil:
		out.Exit = 126
	case err == nil:
	case errors.As(err, &st):
		out.Exit = int(st)
	case ctx.Err() != nil:
		return out, ctx.Err()
	default:
		return out, err
	}
	return out, nil
}

// stop records the first refusal, ends the request and returns the error
// that halts the interpreter.
func (r *run) stop(s *Stop) error {
	r.mu.Lock()
	if r.stopped == nil {
		r.stopped = s
	}
	first := r.stopped
	r.mu.Unlock()
	r.cancel()
	return first
}

// halted is the refusal that ended the request, once one has.
func (r *run) halted() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped != nil {
		return r.stopped
	}
	return nil
}

// shellOnly are the builtins that exist only in the shell: they change
// the interpreter's own state, read standard input or end a loop. cd is
// checked (its directory must be inside the workspace); set takes only
// -e, -u, -x and -o pipefail. A builtin that shares its name with a
// program (echo, test, printf …) is the engine's to judge (Hooks.Builtin).
var shellOnly = map[string]bool{
	":": true, "exit": true, "cd": true, "read": true, "mapfile": true, "readarray": true, "shift": true,
	"unset": true, "let": true, "break": true, "continue": true, "getopts": true, "wait": true, "set": true,
	"local": true,
}

// iterationMark is the command countIterations puts first in every
// loop's body: a word no request can hold (a NUL byte), which call
// counts and runs as ":".
const iterationMark = "\x00loop"

// countIterations puts iterationMark first in the body of every loop of
// f, once.
func countIterations(f *syntax.File) {
	mark := func(body []*syntax.Stmt) []*syntax.Stmt {
		if len(body) > 0 {
			if c, ok := body[0].Cmd.(*syntax.CallExpr); ok && len(c.Args) == 1 && c.Args[0].Lit() == iterationMark {
				return body
			}
		}
		st := &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: iterationMark}}}}}}
		return append([]*syntax.Stmt{st}, body...)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.WhileClause:
			x.Do = mark(x.Do)
		case *syntax.ForClause:
			x.Do = mark(x.Do)
		}
		return true
	})
}

// ShellState reports whether name is a builtin only a shell has that the
// interpreter runs whatever its words, for it changes only the
// interpreter's own variables, loops or input (read, shift, exit, let
// …); cd and set, which it checks, are not.
func ShellState(name string) bool {
	return shellOnly[name] && name != "cd" && name != "set"
}

// call runs before every simple command, builtins included.
func (r *run) call(ctx context.Context, args []string) ([]string, error) {
	if err := r.halted(); err != nil {
		return nil, err
	}
	if len(args) == 1 && args[0] == iterationMark {
		r.mu.Lock()
		r.iterations++
		n := r.iterations
		r.mu.Unlock()
		if n > r.limits.Iterations {
			return nil, r.stop(&Stop{Code: CodeIterations,
				Reason: fmt.Sprintf("the request's loops ran more than %d times", r.limits.Iterations),
				Hint:   "bound the loop, or split the work into several requests"})
		}
		return []string{":"}, nil
	}
	r.mu.Lock()
	r.commands++
	n := r.commands
	r.mu.Unlock()
	if n > r.limits.Commands {
		return nil, r.stop(&Stop{Argv: args, Code: CodeCommands,
			Reason: fmt.Sprintf("the request ran more than %d commands", r.limits.Commands),
			Hint:   "bound the loop, or split the work into several requests"})
	}
	if len(args) > r.limits.Words {
		return nil, r.stop(&Stop{Argv: args[:8], Code: CodeWords,
			Reason: fmt.Sprintf("%s has %d arguments once expanded, more than %d", args[0], len(args), r.limits.Words),
			Hint:   "give the program fewer arguments, or a file that lists them"})
	}
	for _, a := range args {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, r.stop(&Stop{Argv: args, Code: codes.BadRequest,
				Reason: args[0] + ": an argument holds a NUL byte once expanded, which no program can be given",
				Hint:   "strip NUL bytes from what the substitution prints (tr -d '\\0')"})
		}
	}
	name := args[0]
	if name == "printf" && len(args) > 1 && strings.HasPrefix(args[1], "-v") {
		return nil, r.stop(&Stop{Argv: args, Code: CodeBuiltin, Reason: "printf -v is not run by vtexec's interpreter", Hint: "assign the output of a substitution: x=$(printf …)"})
	}
	if name == "printf" && len(args) > 2 && args[1] == "--" {
		// bash's printf ends its options at --; interp's would print it.
		args = append(args[:1:1], args[2:]...)
	}
	hc := interp.HandlerCtx(ctx)
	if !interp.IsBuiltin(name) {
		return args, nil // a program: exec decides
	}
	if !shellOnly[name] {
		v := Verdict{Code: CodeBuiltin, Hint: "run programs directly",
			Reason: name + " is a shell builtin vtexec's interpreter does not run: it would change what runs in ways vtexec cannot check"}
		if r.hooks.Builtin != nil {
			v = r.hooks.Builtin(ctx, args, hc.Dir)
		}
		if !v.Allow {
			return nil, r.stop(&Stop{Argv: args, Code: v.Code, Reason: v.Reason, Hint: v.Hint})
		}
		r.record(args)
		return args, nil
	}
	switch name {
	case "cd":
		if len(args) != 2 || strings.HasPrefix(args[1], "-") {
			return nil, r.stop(&Stop{Argv: args, Code: codes.BadUsage, Reason: "cd takes exactly one directory", Hint: "use cd DIR"})
		}
		dir := args[1]
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(hc.Dir, dir)
		}
		if !r.hooks.Inside(dir) {
			return nil, r.stop(&Stop{Argv: args, Code: codes.OutsideWorkspace, Reason: "cd: " + args[1] + " is outside the workspace", Hint: "stay inside the workspace"})
		}
	case "set":
		for _, a := range args[1:] {
			if a == "--" {
				break // the rest are the positional parameters
			}
			if !slices.Contains([]string{"-e", "+e", "-u", "+u", "-x", "+x", "-o", "+o", "pipefail", "errexit", "nounset", "-eu", "-euo", "-ex"}, a) {
				return nil, r.stop(&Stop{Argv: args, Code: CodeBuiltin, Reason: "set " + a + " is not run: only -e, -u, -x and -o pipefail are", Hint: "drop it"})
			}
		}
	}
	r.record(args)
	return args, nil
}

func (r *run) record(args []string) {
	r.mu.Lock()
	r.ran = append(r.ran, slices.Clone(args))
	r.mu.Unlock()
}

// exec runs a program: checked with its final argv, then run by the
// engine.
func (r *run) exec(ctx context.Context, args []string) error {
	if err := r.halted(); err != nil {
		return err
	}
	hc := interp.HandlerCtx(ctx)
	env := r.settings(hc.Env)
	v := r.hooks.Check(ctx, args, hc.Dir, env)
	if !v.Allow {
		return r.stop(&Stop{Argv: args, Code: v.Code, Reason: v.Reason, Hint: v.Hint})
	}
	r.record(args)
	stdout := hc.Stdout
	if _, isFile := stdout.(*os.File); !isFile && stdout != r.stdout {
		// A command substitution's buffer.
		stdout = &bounded{w: stdout, left: r.limits.SubstOutput, r: r, argv: args}
	}
	code, err := r.hooks.Exec(ctx, v.Prepared, hc.Stdin, stdout, hc.Stderr)
	if err != nil {
		if h := r.halted(); h != nil {
			return h
		}
		return err
	}
	if code != 0 {
		return interp.ExitStatus(uint8(code))
	}
	return nil
}

// settings are the exported variables that differ from the environment
// the request started with: the assignments before a command, or
// exported ones. The check decides whether each may reach the program.
func (r *run) settings(env expand.Environ) []string {
	var out []string
	env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.Kind == expand.String {
			if base, ok := r.base[name]; !ok || base != vr.Str {
				out = append(out, name+"="+vr.Str)
			}
		}
		return true
	})
	slices.Sort(out)
	return out
}

// bounded is a command substitution's output, cut at the limit.
type bounded struct {
	w    io.Writer
	left int64
	r    *run
	argv []string
}

func (b *bounded) Write(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		return 0, b.r.stop(&Stop{Argv: b.argv, Code: CodeSubstOutput,
			Reason: fmt.Sprintf("a command substitution's output is over %d bytes", b.r.limits.SubstOutput),
			Hint:   "have the command write less, or write it to a file and read the file"})
	}
	b.left -= int64(len(p))
	return b.w.Write(p)
}

// open opens a redirect's file through the engine's opener.
func (r *run) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if err := r.halted(); err != nil {
		return nil, err
	}
	if path == os.DevNull {
		return os.OpenFile(path, flag, perm)
	}
	hc := interp.HandlerCtx(ctx)
	if !filepath.IsAbs(path) {
		path = filepath.Join(hc.Dir, path)
	}
	f, err := r.hooks.Open(ctx, path, flag, perm)
	var s *Stop
	if errors.As(err, &s) {
		return nil, r.stop(s) // a refused place, not a failed open
	}
	return f, err
}

// readDir lists a directory for a glob, only inside the workspace.
func (r *run) readDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	if !r.hooks.Inside(path) {
		return nil, fs.ErrPermission
	}
	return os.ReadDir(path)
}

// stat is for globs and tests: inside the workspace only.
func (r *run) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	if !r.hooks.Inside(name) {
		return nil, fs.ErrPermission
	}
	if follow {
		return os.Stat(name)
	}
	return os.Lstat(name)
}

// stopOnUnreadablePattern turns the shell library's panic on a pattern
// it cannot compile (see shpattern), from a value known only at run
// time, into a stop; any other panic goes on. The checker refuses such
// patterns where they are written out; a pipeline's left side runs in a
// goroutine of the library's own, where no recover reaches.
func stopOnUnreadablePattern(r *run, dir string, out *Outcome, err *error) {
	p := recover()
	if p == nil {
		return
	}
	why, ok := shpattern.Recovered(p)
	if !ok {
		panic(p)
	}
	r.mu.Lock()
	ran := r.ran
	r.mu.Unlock()
	*out = Outcome{Exit: 126, Dir: dir, Ran: ran, Stopped: &Stop{Code: codes.ParseError, Reason: "a pattern cannot be read: " + why, Hint: shpattern.Hint}}
	*err = nil
}
