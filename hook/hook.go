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
	"github.com/vtexec/vtexec/codes"
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
	// Environ is the harness's whole environment (NAME=value), which its
	// bash starts with; --no-rewrite looks in it for exported functions.
	Environ []string
	// Workspace is the project pinned when the hook was installed
	// (hook --workspace); "" takes it from the harness (see projectDir).
	Workspace string
	// Getwd is the hook process's own working directory, where Codex
	// starts its hooks: the session's directory. nil means none.
	Getwd func() (string, error)
}

// Decide answers one event. Shell commands are decided by the Engine; file
// tools' paths are confined to the workspace; tools that run what the
// hook cannot check and tools it does not know are refused; the
// harness's other tools pass (see toolClass).
func Decide(ctx context.Context, ev Event, opt Options) Verdict {
	root, from := projectDir(ev.Harness, opt)
	if root == "" {
		return deny(CodeNoWorkspace, "the workspace is not known: "+from+"; the event's cwd and directory arguments are the model's to set, so they are not taken as the workspace",
			"install the hook with the project pinned: vtexec hook install --harness "+string(ev.Harness)+" --workspace DIR")
	}
	ws, err := workspace.New(root)
	if err != nil {
		return deny(CodeNoWorkspace, "the workspace "+from+" is not usable: "+err.Error(), "pin an existing project directory: vtexec hook install --harness "+string(ev.Harness)+" --workspace DIR")
	}
	switch toolClass(ev.Harness, ev.ToolName) {
	case "shell":
		t := shellTools()[ev.Harness][ev.ToolName]
		return decideShell(ctx, ev, opt, ws, t[0], t[1])
	case "file":
		return decideFiles(ev, ws)
	case "refused":
		return deny(CodeUncheckedTool, refusedTools()[ev.Harness][ev.ToolName], "do it with the shell tool, which vtexec checks")
	case "other":
		return Verdict{Kind: Pass}
	}
	return deny(CodeUnknownTool, fmt.Sprintf("vtexec does not know the %s tool %q, so it cannot tell what it reads, writes or runs", ev.Harness, ev.ToolName),
		"use the harness's shell or file tools; if the harness added this tool, update vtexec")
}

// CodeNoWorkspace is the refusal of an event whose workspace nothing the
// person set names.
const CodeNoWorkspace = codes.NoWorkspace

// projectVars are the variables in which a harness names the project to
// its hooks; the harness sets them, the model cannot.
var projectVars = map[Harness]string{Claude: "CLAUDE_PROJECT_DIR", Gemini: "GEMINI_PROJECT_DIR"}

// projectDir is the workspace and where it came from, only from what the
// person set: the directory pinned at install, else the harness's project
// variable (Claude Code, Gemini CLI), else for Codex the hook's own
// working directory, which Codex sets to the session's directory (the
// event's cwd is the model's workdir argument). The event's cwd is never
// the workspace. root is "" when none of these is there; from then says
// what was missing.
func projectDir(h Harness, opt Options) (root, from string) {
	if opt.Workspace != "" {
		if !filepath.IsAbs(opt.Workspace) {
			return "", "the pinned --workspace " + opt.Workspace + " is not absolute"
		}
		return opt.Workspace, "pinned with --workspace (" + opt.Workspace + ")"
	}
	if name := projectVars[h]; name != "" {
		d := ""
		if opt.Getenv != nil {
			d = opt.Getenv(name)
		}
		if !filepath.IsAbs(d) {
			return "", "the harness set no absolute " + name
		}
		return d, "named by " + name + " (" + d + ")"
	}
	if h == Codex && opt.Getwd != nil {
		if d, err := opt.Getwd(); err == nil && filepath.IsAbs(d) {
			return d, "Codex's session directory (" + d + ")"
		}
	}
	return "", "the hook's working directory is not known"
}

func decideShell(ctx context.Context, ev Event, opt Options, ws *workspace.Workspace, cmdKey, dirKey string) Verdict {
	command, ok := ev.str(cmdKey)
	if !ok {
		return deny(codes.BadRequest, "the "+ev.ToolName+" call has no string "+cmdKey, "send the command as a string")
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
	d, err := opt.Engine.Check(ctx, vtexec.Request{Command: command, Workspace: ws.Root(), Cwd: cwd, Session: ev.SessionID,
		WantApprovalID: ev.Harness == Claude && opt.Exe != ""})
	if err != nil {
		return requestError(err)
	}
	switch {
	case len(d.RunTime) > 0 && d.Decision == vtexec.VerdictAsk && d.Code == vtexec.CodeRunTimeCheck && opt.Exe != "":
		// Its words are known only when it runs: vtexec runs it,
		// checking each command as it is reached.
		return Verdict{Kind: Rewrite, Input: withCommand(ev.ToolInput, cmdKey, RewriteLine(opt.Exe, ws.Root(), cwd, ev.SessionID, command))}
	case len(d.RunTime) > 0 && d.Decision == vtexec.VerdictAsk && opt.Exe != "":
		// A command in it needs a person, who is asked about the
		// command as it is reached, with its final words: no question
		// here could stand for that one.
		return fromDecision(vtexec.NeedsApproval(d))
	case len(d.RunTime) > 0 && opt.Exe == "" && d.Decision != vtexec.VerdictDeny:
		return deny(codes.NeedsVtexec, "its words are known only when it runs ("+strings.Join(d.RunTime, " ")+"), and vtexec checks such a command only when it runs it itself, which rewriting is off for",
			"let the hook rewrite commands (install it without --no-rewrite), or write the words out")
	case d.Decision == vtexec.VerdictAsk && ev.Harness == Claude && d.ApprovalID != "":
		// Claude Code asks its person about the command rewritten to run
		// through vtexec with this ask's approval id: a yes runs it in
		// the box, once.
		v := fromDecision(d)
		v.Input = withCommand(ev.ToolInput, cmdKey, ApprovedLine(opt.Exe, ws.Root(), cwd, ev.SessionID, d.ApprovalID, command))
		return v
	case d.Decision == vtexec.VerdictAsk && ev.Harness == Claude:
		return fromDecision(d)
	case d.Decision == vtexec.VerdictAsk:
		return fromDecision(vtexec.NeedsApproval(d))
	case !d.Allowed():
		return fromDecision(d)
	case opt.Exe != "":
		return Verdict{Kind: Rewrite, Input: withCommand(ev.ToolInput, cmdKey, RewriteLine(opt.Exe, ws.Root(), cwd, ev.SessionID, command))}
	}
	if why := plainForBash(ev.Harness, command, d, bashEnviron{get: opt.Getenv, list: opt.Environ}, ws.Cwd()); why != "" {
		return deny(codes.NeedsVtexec, "vtexec allows this command only when it runs it itself, and rewriting is off: "+why,
			"let the hook rewrite commands (install it without --no-rewrite); without rewriting only plain words of programs, no builtin, git, glob, expansion or redirection, pass, and only in a plain bash -c (Gemini CLI)")
	}
	return Verdict{Kind: Allow}
}

// withCommand is a copy of a shell tool's input with line as its
// command (under cmdKey).
func withCommand(input map[string]json.RawMessage, cmdKey, line string) map[string]json.RawMessage {
	in := make(map[string]json.RawMessage, len(input))
	for k, v := range input {
		in[k] = v
	}
	in[cmdKey], _ = json.Marshal(line)
	return in
}

// boundary is the deny for a path the workspace refuses.
func boundary(err error) Verdict {
	var be *workspace.BoundaryError
	if errors.As(err, &be) {
		return deny(string(be.Code), be.Error(), be.Hint())
	}
	return deny(codes.BadPath, err.Error(), "use a path inside the workspace")
}

func requestError(err error) Verdict {
	var re *vtexec.RequestError
	if errors.As(err, &re) {
		return deny(re.Code, re.Reason, re.Hint)
	}
	return deny(codes.InternalError, err.Error(), "vtexec itself failed; report it")
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
	pinned := fs.String("workspace", "", "the project directory, pinned; default: the harness's project directory (see README)")
	noRewrite := fs.Bool("no-rewrite", false, "never rewrite a shell command to run through vtexec; allow only what bash may run itself")
	if code, done := parseFlags(fs, args, "vtexec hook [--harness claude|codex|gemini|auto] [--workspace DIR] [--no-rewrite] < EVENT", stdout, stderr); done {
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
	opt := Options{Engine: vtexec.NewEngine(vtexec.Config{}), Getenv: getenv, Environ: env, Workspace: *pinned, Getwd: os.Getwd}
	defer opt.Engine.Close() // the audit log it keeps open
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
