// Command vtexec checks and runs an agent's shell commands inside a
// workspace, without a shell.
//
//	vtexec check [--workspace DIR] [--cwd DIR] [--json] -- 'COMMAND'
//	vtexec check --jsonl [--workspace DIR]
//	vtexec run [--workspace DIR] [--cwd DIR] [--timeout 30s] [--max-output 64KiB] [--json] -- 'COMMAND'
//	vtexec serve [--workspace DIR]                (MCP over stdio)
//	vtexec hook [--harness claude|codex|gemini|auto] < EVENT
//
// After "--", one argument is a command string; several are an argv.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/hook"
	"github.com/vtexec/vtexec/internal/buildinfo"
	"github.com/vtexec/vtexec/internal/display"
	"github.com/vtexec/vtexec/internal/exithold"
	"github.com/vtexec/vtexec/internal/inherited"
	"github.com/vtexec/vtexec/internal/phase"
)

// Exit codes of check; run exits with the command's own code.
const (
	exitAllow = 0
	exitDeny  = 1
	exitUsage = 2
	exitAsk   = 3
)

const usage = `usage:
  vtexec check [--workspace DIR] [--cwd DIR] [--session ID] [--json] -- 'COMMAND'
  vtexec check --jsonl [--workspace DIR]        (JSON requests on stdin, verdicts on stdout)
  vtexec run [--workspace DIR] [--cwd DIR] [--session ID] [--timeout 30s] [--max-output 64KiB]
             [--audit FILE|off] [--ask-timeout 2m] [--confinement required|best-effort|off] [--no-prompt] [--json] -- 'COMMAND'
  vtexec policy allow [--workspace DIR] [--scope local|project|user] [--any-arguments] [--network] -- PROGRAM [ARGUMENTS...]
  vtexec policy root add [--workspace DIR] [--scope local|project|user] [--read-only] PATH
  vtexec policy list [--workspace DIR] [--json]
  vtexec policy explain [--workspace DIR] [--cwd DIR] [--session ID] -- 'COMMAND'
  vtexec policy check [--workspace DIR]
  vtexec policy trust [--workspace DIR]          (vouch for the project's policy files as they are now)
  vtexec policy commands [--json|--markdown]    (the catalogue: programs, flags, refusals)
  vtexec serve [--workspace DIR] [--audit FILE|off] [--ask-timeout 2m] [--max-jobs 8] [--jsonl [--ask]]
                                                (MCP server on stdin/stdout: tools shell, shell_check)
  vtexec hook [--harness claude|codex|gemini|auto] [--no-rewrite]   (a harness's pre-tool hook: event on stdin)
  vtexec hook install|uninstall --harness claude|codex|gemini [--scope user|project] [--workspace DIR] [--dry-run]

  vtexec session reset [--workspace DIR] ID   (a person lifts a session's escalation)
  vtexec describe [PROGRAM]                     (the rules, written for a model; one program's flags)
  vtexec version | vtexec SUBCOMMAND --help

After --, one argument is a shell command string; several are one argv.
check exits 0 allow, 1 deny, 3 ask, 2 usage error.
run exits with the command's code, or 126 when vtexec refuses it.
`

// engine is the process's Engine, made when a command first needs it.
var engine = sync.OnceValue(func() *vtexec.Engine { return vtexec.NewEngine(vtexec.Config{}) })

func main() {
	phase.Mark("main")
	// Before anything starts a program: what the caller left open is not
	// the programs'.
	inherited.CloseOnExec()
	code := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	engine().Close()
	phase.Mark("closed")
	phase.Write()
	leaveAtExit()
	os.Exit(code)
}

// onSignals is ctx ended by SIGINT or SIGTERM, for what must end in
// order when asked to: a run (its programs killed, its directories
// removed), a server, a stream of checks (what was answered flushed).
// A single check, a hook or a policy edit keeps the signals' default:
// nothing of theirs needs ending, and the handler's thread costs a fresh
// process ~0.15 ms.
func onSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// onSignalsAhead is onSignals for the rest of the process, with the
// handler set up on a goroutine of its own: setting it up waits for a
// thread Go starts for signals (~0.3 ms of a fresh run as root), which
// the run's own start need not wait for. A signal in the moment before
// it is set up ends the process as one before main does; the run's
// directories it may leave are swept by a later run.
func onSignalsAhead(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		<-ch
		cancel()
	}()
	return ctx
}

// usageError is a mistake in how vtexec itself was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{""}
	}
	var code int
	var err error
	switch args[0] {
	case "check":
		code, err = cmdCheck(ctx, args[1:], stdin, stdout, stderr)
	case "run":
		// The handler stays until the process exits: a signal while the
		// run's directories and cgroups are removed (Engine.Close) must
		// not cut that short, and stopping it costs ~0.1 ms. What the box
		// will need begins next.
		ctx = onSignalsAhead(ctx)
		vtexec.PrepareRun()
		// One request: its programs' mount namespaces go after the exit.
		confine.LeaveNamespacesAtExit(exithold.CloseAfterExit)
		code, err = cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "policy":
		code, err = cmdPolicy(ctx, args[1:], stdout)
	case "serve":
		ctx, stop := onSignals(ctx)
		code, err = cmdServe(ctx, args[1:], stdin, stdout)
		stop()
	case "session":
		code, err = cmdSession(ctx, args[1:], stdout)
	case "hook":
		return hook.Main(args[1:], stdin, stdout, stderr, os.Environ())
	case "help", "-h", "--help":
		if len(args) >= 2 && args[0] == "help" && args[1] != "help" && !strings.HasPrefix(args[1], "-") {
			// vtexec help SUBCOMMAND [SUBSUBCOMMAND] is SUBCOMMAND --help.
			return run(ctx, append(slices.Clone(args[1:]), "--help"), stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "describe":
		switch len(args) {
		case 1:
			fmt.Fprint(stdout, describe())
		case 2:
			if strings.HasPrefix(args[1], "-") {
				fmt.Fprint(stdout, "usage: vtexec describe [PROGRAM]\n\nThe rules, written for a model: what runs without asking, what asks, what is refused; with PROGRAM, that program's flags and operands.\n")
				return 0
			}
			fmt.Fprint(stdout, describeProgram(args[1]))
		default:
			err = &usageError{"describe takes at most one program: vtexec describe [PROGRAM]"}
		}
		if err == nil {
			return 0
		}
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "vtexec", version())
		return 0
	case "":
		err = &usageError{"no subcommand"}
	default:
		err = &usageError{fmt.Sprintf("unknown subcommand %q", args[0])}
	}
	var help *helpRequested
	if errors.As(err, &help) {
		fmt.Fprint(stdout, help.text)
		return 0
	}
	if err != nil {
		if (args[0] == "run" || args[0] == "check") && wantsJSON(args[1:]) {
			// The body tells vtexec's failure from the command's status.
			encodeJSON(stdout, map[string]jsonError{"error": toJSONError(err)})
			return exitUsage
		}
		msg := err.Error()
		var re *vtexec.RequestError
		if errors.As(err, &re) && re.Hint != "" {
			msg += " (hint: " + re.Hint + ")"
		}
		fmt.Fprintf(stderr, "vtexec: %s\n", display.Lines(msg))
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprint(stderr, usage)
		}
		return exitUsage
	}
	return code
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// usageOf is the lines of the general usage about the subcommand name
// ("run", "policy allow"), with their continuation lines.
func usageOf(name string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(usage, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "vtexec "+name+" ") || t == "vtexec "+name:
			in = true
		case strings.HasPrefix(t, "vtexec ") || t == "":
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return "  vtexec " + name + " [flags]\n"
	}
	return b.String()
}

// helpRequested is -h or --help on a subcommand: its flags, on stdout.
type helpRequested struct{ text string }

func (h *helpRequested) Error() string { return "help requested" }

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			var b strings.Builder
			// The usage lines, moved under "usage: ".
			lines := strings.ReplaceAll(usageOf(fs.Name()), "\n  ", "\n       ")
			fmt.Fprintf(&b, "usage: %s\nflags:\n", strings.TrimLeft(lines, " "))
			fs.SetOutput(&b)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
			return &helpRequested{b.String()}
		}
		msg := err.Error()
		if strings.Contains(msg, "timeout") && strings.Contains(msg, "invalid value") {
			msg += " (give a duration with a unit, e.g. 5s, 90s or 2m)"
		}
		return &usageError{msg}
	}
	// Without "--", a word after the command that is one of vtexec's own
	// flags was meant for vtexec: refuse rather than run it as the
	// command's argument, or drop it.
	if !slices.Contains(args, "--") && fs.NArg() > 1 {
		for _, a := range fs.Args()[1:] {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if strings.HasPrefix(a, "-") && fs.Lookup(name) != nil {
				return &usageError{fmt.Sprintf("vtexec's flag %s comes after the command: put vtexec's flags first and the command after --, e.g. vtexec %s %s -- %q",
					a, fs.Name(), a, fs.Arg(0))}
			}
		}
	}
	return nil
}

// version is the module version vtexec was built as, with the commit
// when the build knows it.
func version() string { return buildinfo.Version() }

// encodeJSON writes v as one JSON line, without HTML escaping.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonError is vtexec's own failure in JSON mode: {"error": {...}}.
type jsonError struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
	Hint   string `json:"hint"`
}

func toJSONError(err error) jsonError {
	var re *vtexec.RequestError
	var ue *usageError
	var pe *execpolicy.PolicyError
	switch {
	case errors.As(err, &re):
		return jsonError{re.Code, re.Reason, re.Hint}
	case errors.As(err, &pe):
		return jsonError{codes.BadPolicy, pe.Error(), "fix the policy file (vtexec policy check)"}
	case errors.As(err, &ue):
		return jsonError{codes.Usage, ue.msg, "see vtexec help for the flags; the command goes after --"}
	}
	return jsonError{codes.InternalError, err.Error(), "vtexec itself failed; the command did not run or its result is unknown: report it"}
}

// wantsJSON reports whether the flags before "--" ask for JSON output
// (--json, -json, --json=true), even if they do not parse.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "json" {
			if b, err := strconv.ParseBool(val); !hasVal || (err == nil && b) {
				return true
			}
		}
	}
	return false
}
