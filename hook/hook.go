package hook

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/workspace"
)

// Options set up Decide.
type Options struct {
	Engine *vtexec.Engine
	// Exe is the absolute path of the vtexec binary an allowed shell
	// command is rewritten to run through; "" turns rewriting off.
	Exe string
	// Getenv reads the harness's environment (project dir, PATH).
	Getenv func(string) string
}

// shellTools are the shell tools and the argument that holds the command
// and, if any, the directory to run it in.
var shellTools = map[Harness]map[string][2]string{
	Claude: {"Bash": {"command", ""}},
	Codex:  {"Bash": {"command", "workdir"}, "exec_command": {"cmd", "workdir"}},
	Gemini: {"run_shell_command": {"command", "dir_path"}},
}

// Decide answers one event. Shell commands are decided by the Engine; file
// tools' paths are confined to the workspace; other tools pass.
func Decide(ctx context.Context, ev Event, opt Options) Verdict {
	root := workspaceDir(ev, opt.Getenv)
	if root == "" {
		return deny("bad_request", "the event names no project directory (cwd)", "run the harness from the project directory")
	}
	ws, err := workspace.New(root)
	if err != nil {
		return deny("bad_request", err.Error(), "run the harness from an existing project directory")
	}
	if t, ok := shellTools[ev.Harness][ev.ToolName]; ok {
		return decideShell(ctx, ev, opt, ws, t[0], t[1])
	}
	return decideFiles(ev, ws)
}

// workspaceDir is the project directory: the harness's own variable, else
// the event's cwd.
func workspaceDir(ev Event, getenv func(string) string) string {
	name := map[Harness]string{Claude: "CLAUDE_PROJECT_DIR", Gemini: "GEMINI_PROJECT_DIR"}[ev.Harness]
	if d := getenv(name); name != "" && filepath.IsAbs(d) {
		return d
	}
	return ev.Cwd
}

func decideShell(ctx context.Context, ev Event, opt Options, ws *workspace.Workspace, cmdKey, dirKey string) Verdict {
	command, ok := ev.str(cmdKey)
	if !ok {
		return deny("bad_request", "the "+ev.ToolName+" call has no string "+cmdKey, "send the command as a string")
	}
	// The command starts in the tool's directory argument, else in the
	// harness's cwd; at the root, the session's cwd (after a cd) applies.
	start := ev.Cwd
	if d, ok := ev.str(dirKey); ok && d != "" {
		start = d
		if !filepath.IsAbs(d) {
			start = filepath.Join(ev.Cwd, d)
		}
	}
	cwd := ""
	if start != "" {
		if err := ws.Chdir(start); err != nil {
			return boundary(err)
		}
		if ws.Cwd() != ws.Root() {
			cwd = ws.Cwd()
		}
	}
	d, err := opt.Engine.Check(ctx, vtexec.Request{Command: command, Workspace: ws.Root(), Cwd: cwd, Session: ev.SessionID})
	if err != nil {
		return requestError(err)
	}
	switch {
	case d.Decision == "ask" && ev.Harness == Claude:
		return fromDecision(d)
	case d.Decision == "ask":
		return fromDecision(vtexec.NeedsApproval(d))
	case !d.Allowed():
		return fromDecision(d)
	case opt.Exe != "":
		in := make(map[string]json.RawMessage, len(ev.ToolInput))
		for k, v := range ev.ToolInput {
			in[k] = v
		}
		line, _ := json.Marshal(RewriteLine(opt.Exe, ws.Root(), cwd, ev.SessionID, command))
		in[cmdKey] = line
		return Verdict{Kind: Rewrite, Input: in}
	}
	if why := plainForBash(command, d, opt.Getenv("PATH"), ws.Cwd()); why != "" {
		return deny("needs_vtexec", "vtexec allows this command only when it runs it itself, and rewriting is off: "+why,
			"use plain words with no git, globs, expansions or redirections, or let the hook rewrite commands (no --no-rewrite)")
	}
	return Verdict{Kind: Allow}
}

// boundary is the deny for a path the workspace refuses.
func boundary(err error) Verdict {
	var be *workspace.BoundaryError
	if errors.As(err, &be) {
		return deny(string(be.Code), be.Error(), be.Hint())
	}
	return deny("bad_path", err.Error(), "use a path inside the workspace")
}

func requestError(err error) Verdict {
	var re *vtexec.RequestError
	if errors.As(err, &re) {
		return deny(re.Code, re.Reason, re.Hint)
	}
	return deny("internal_error", err.Error(), "vtexec itself failed; report it")
}

// maxEvent bounds what is read from stdin.
const maxEvent = 16 << 20

// parseFlags parses a hook subcommand's flags. done reports that the
// subcommand ends here with code: its help on stdout (0), or its usage
// on stderr (2) for a bad flag or a stray word.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (code int, done bool) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "usage: %s\n\nflags:\n", usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return 0, true
	}
	if err != nil || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "vtexec hook: usage: %s\n", usage)
		return 2, true
	}
	return 0, false
}

// Main is `vtexec hook`: one event on stdin, one answer on stdout (and
// `vtexec hook install|uninstall`, which edit a harness's settings). An event
// it cannot read is blocked with exit code 2 and the reason on stderr,
// which every harness takes as a block.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	getenv := func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v
			}
		}
		return ""
	}
	if len(args) > 0 && (args[0] == "install" || args[0] == "uninstall") {
		return mainInstall(args[0] == "install", args[1:], stdout, stderr, getenv)
	}
	if len(args) > 0 && args[0] == "test" {
		return mainTest(args[1:], stdout, stderr, getenv)
	}
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	harness := fs.String("harness", "auto", "claude, codex, gemini or auto")
	noRewrite := fs.Bool("no-rewrite", false, "never rewrite a shell command to run through vtexec; allow only what bash may run itself")
	if code, done := parseFlags(fs, args, "vtexec hook [--harness claude|codex|gemini|auto] [--no-rewrite] < EVENT", stdout, stderr); done {
		return code
	}
	h := Harness(*harness)
	switch h {
	case Claude, Codex, Gemini, Auto:
	default:
		fmt.Fprintf(stderr, "vtexec hook: unknown harness %q (claude, codex, gemini or auto)\n", h)
		return 2
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxEvent+1))
	if err == nil && len(data) > maxEvent {
		err = fmt.Errorf("more than %d bytes", maxEvent)
	}
	var ev Event
	if err == nil {
		ev, err = ParseEvent(h, data)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vtexec refused (bad_request): cannot read the hook event: %v\nHint: run vtexec hook as the harness's pre-tool hook (see vtexec's README)\n", err)
		return 2
	}
	noteSighting(ev)
	opt := Options{Engine: vtexec.NewEngine(vtexec.Config{}), Getenv: getenv}
	if !*noRewrite {
		opt.Exe = selfPath()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stdout.Write(Render(ev.Harness, Decide(ctx, ev, opt)))
	return 0
}

// selfPath is the running vtexec's absolute path, or "" (then commands
// are not rewritten and only plain ones pass).
func selfPath() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	if p, err = filepath.EvalSymlinks(p); err != nil {
		return ""
	}
	return p
}
