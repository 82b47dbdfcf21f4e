package vtexec

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/dirwatch"
	"github.com/vtexec/vtexec/internal/runbox"

	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/audit"
	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/cwdtrack"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/phase"
	"github.com/vtexec/vtexec/runner"
	"github.com/vtexec/vtexec/workspace"
)

// Defaults for Run.
const (
	DefaultTimeout   = execpolicy.DefaultTimeout
	DefaultMaxOutput = execpolicy.DefaultMaxOutput
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
	// Session, if set, keeps the working directory and "session"
	// approvals across calls with the same ID. Without it, each call is
	// its own session.
	Session string
	// Approver is asked when the decision is ask (Run only). Without one,
	// an ask is refused with code needs_approval.
	Approver  Approver
	Timeout   time.Duration // Run only; 0 means the policy's, else DefaultTimeout
	MaxOutput int           // Run only; bytes kept per stream; 0 means the policy's, else DefaultMaxOutput
	// AuditLog is the audit file; "" means the default in the state
	// directory, "off" disables auditing.
	AuditLog string
	// WantApprovalID makes Check hand out an approval id for an ask.
	WantApprovalID bool
	// HoldAudit (Check only) keeps the decision's audit record in the
	// Decision instead of writing it: Engine.WriteAudit writes the
	// records of many decisions with one write, and must be called
	// before each is answered.
	HoldAudit bool
	// Confinement is "required", "best-effort" or "off" (Run only); ""
	// means the policy's, else required where the kernel has Landlock.
	Confinement string
	// Started, if set (Run only), is called once the command is about to
	// run, with a function that returns the output kept so far; that
	// function may be called from any goroutine while Run goes on.
	Started func(output func() (stdout, stderr string))
	// Decided, if set (Run only), is called once with the final decision
	// (after any approval) and the directory the command starts in,
	// before anything runs.
	Decided func(d Decision, cwd string)
	// Terminal, if set (Run only), is a terminal, a pseudo-terminal's
	// far end, that the command reads as stdin and writes its stdout and
	// stderr to (see runner.Options.Terminal); Result.Stdout is then
	// empty and Result.Stderr has only vtexec's own messages.
	Terminal *os.File
	// KeepCwd (Run only) leaves the session's cwd as it was, whatever the
	// command's cd did, as bash does for a command run in the
	// background.
	KeepCwd bool
}

// Verdict is what happens to a request: VerdictAllow, VerdictAsk or
// VerdictDeny. It marshals
// as its word.
type Verdict = execpolicy.Decision

// The verdicts.
const (
	VerdictAllow = execpolicy.Allow
	VerdictAsk   = execpolicy.Ask
	VerdictDeny  = execpolicy.Deny
)

// Decision is the verdict on a request, shaped for JSON.
type Decision struct {
	Cmd      string    `json:"cmd"`
	Decision Verdict   `json:"decision"`
	Code     string    `json:"code"`
	Reason   string    `json:"reason"`
	Hint     string    `json:"hint"`
	Commands []Command `json:"commands"`
	// Rule and RuleFile name the policy rule or approval that decided.
	Rule     string `json:"rule,omitempty"`
	RuleFile string `json:"rule_file,omitempty"`
	// Approval is how a person answered, when one was asked.
	Approval string `json:"approval,omitempty"`
	// Asks lists, for an ask, every part that needs a person and the rule
	// "session" or "always" would record.
	Asks []Ask `json:"asks,omitempty"`
	// NeverAlways is set when "always" cannot be chosen.
	NeverAlways bool `json:"never_always,omitempty"`
	// Note tells the person something about their answer, e.g. that an
	// "always" rule waits for vtexec policy trust.
	Note string `json:"note,omitempty"`
	// ApprovalID, for an ask, lets a harness approve exactly this
	// command (see IDApprover); set by Check when the request asks for
	// one (WantApprovalID).
	ApprovalID string `json:"approval_id,omitempty"`
	// RunTime lists the words known only when the command runs ($(…),
	// $?, variables): the command runs in vtexec's interpreter, each
	// command checked with its final words as it is reached.
	RunTime []string `json:"run_time,omitempty"`
	// Warnings (Check only; Run reports them in Result) are failures of
	// vtexec's own that did not change the decision, such as an audit
	// line that could not be written.
	Warnings []Warning `json:"warnings,omitempty"`

	held *heldRecord // its audit record until WriteAudit (HoldAudit)
}

// Command is one simple command of a checked plan.
type Command struct {
	Argv      []string `json:"argv"`
	Program   string   `json:"program,omitempty"`
	Builtin   string   `json:"builtin,omitempty"`
	Env       []string `json:"env,omitempty"`       // output settings from a prefix: "LC_ALL=C"
	Redirects []string `json:"redirects,omitempty"` // "< in.txt", "> out.txt", "2>&1"
	// Source is the statement as written, for a command whose words are
	// known only when it runs (its Argv are its words as written).
	Source string `json:"source,omitempty"`
}

// Allowed reports whether the decision lets the command run.
func (d Decision) Allowed() bool { return d.Decision == VerdictAllow }

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
	// Stopped is set when a later part of the command was refused just
	// before it would have run (see Stop); the parts before it ran.
	Stopped *Stop `json:"stopped,omitempty"`
	// Confinement is what the kernel box applied to the command.
	Confinement *confine.Report `json:"confinement,omitempty"`
	// Disarmed lists what the command made where it would steer a
	// program that runs later outside the box, and that vtexec moved
	// out of the workspace into its state directory after the run.
	Disarmed []confine.Disarmed `json:"disarmed,omitempty"`
	// Warnings are vtexec's own failures after the command ran (the
	// session cwd or the audit line not saved): reported beside the
	// result, never instead of it.
	Warnings []Warning `json:"warnings,omitempty"`
	// Job is the id of a command a face started in the background
	// (vtexec serve); its output is read by that id.
	Job string `json:"job,omitempty"`
	// Marker is the session's cwd marker line (cwdtrack), set when the
	// request named a session; plain-text faces print it last.
	Marker string `json:"-"`
}

// MarshalJSON writes stdout and stderr as text; a stream that is not
// valid UTF-8 is also written exactly as stdout_base64 or stderr_base64,
// and its text has U+FFFD in place of the bytes that are not UTF-8.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	out := struct {
		plain
		StdoutBase64 string `json:"stdout_base64,omitempty"`
		StderrBase64 string `json:"stderr_base64,omitempty"`
	}{plain: plain(r)}
	if !utf8.ValidString(r.Stdout) {
		out.StdoutBase64 = base64.StdEncoding.EncodeToString([]byte(r.Stdout))
		out.Stdout = strings.ToValidUTF8(r.Stdout, "\uFFFD")
	}
	if !utf8.ValidString(r.Stderr) {
		out.StderrBase64 = base64.StdEncoding.EncodeToString([]byte(r.Stderr))
		out.Stderr = strings.ToValidUTF8(r.Stderr, "\uFFFD")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // faces print "<" as it is
	err := enc.Encode(out)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// Warning is a failure of vtexec's own that did not stop the request.
type Warning struct {
	Code   string `json:"code"` // session_not_saved, audit_failed, run_incomplete
	Reason string `json:"reason"`
}

// Stop is a part of an allowed command that was checked again just before
// it ran and refused: an earlier part had changed what its paths lead to
// (cp -P or mv put a symbolic link in the way, a directory was swapped).
type Stop struct {
	Argv   []string `json:"argv"`
	Code   string   `json:"code"`
	Reason string   `json:"reason"`
	Hint   string   `json:"hint"`
}

// CodeDirNotReached is the code of a Stop before a step checked in a
// directory the run did not reach: a cd before it did not run or failed.
const CodeDirNotReached = codes.CwdNotReached

func (s *Stop) Error() string {
	return fmt.Sprintf("%s: %s; %s", StoppedAt(s.Argv), s.Reason, s.Hint)
}

// StoppedAt says where a run was stopped: before the command argv, or,
// with none (a word that could not be expanded), only that it was.
func StoppedAt(argv []string) string {
	if len(argv) == 0 {
		return "stopped"
	}
	return "stopped before " + DisplayArgv(argv)
}

// ExitRefused is the exit code reported for a command that did not run.
const ExitRefused = 126

// CodeNeedsApproval is the code of an ask that no person could answer.
const CodeNeedsApproval = codes.NeedsApproval

// CodeDeniedByUser is the code of a command a person answered deny (or
// did not answer in time).
const CodeDeniedByUser = codes.DeniedByUser

// RequestError is a request vtexec cannot act on: a missing workspace, a
// cwd outside it, both or neither of Command and Argv, a policy file that
// does not load.
type RequestError struct {
	Code   string // "bad_request" or "bad_policy"
	Reason string
	Hint   string
}

func (e *RequestError) Error() string { return e.Code + ": " + e.Reason }

func badRequest(hint, format string, args ...any) *RequestError {
	return &RequestError{Code: codes.BadRequest, Reason: fmt.Sprintf(format, args...), Hint: hint}
}

// Engine is the one orchestrator: parse, check, decide, ask, run, audit.
// A face (the CLI, a JSON-lines stream, an MCP server, a harness hook)
// holds one Engine for its lifetime and sends every request through it.
// An Engine keeps the policy it loaded for each workspace and loads it
// again when a policy file or the trust store changes (one stat of each
// per request). An Engine is safe for concurrent use. The zero value is
// not; use NewEngine.
type Engine struct {
	checker execpolicy.Checker

	mu        sync.Mutex
	policies  map[string]*cachedPolicy // by policy files, see policy
	lastFiles *madeFiles               // see policyFilesFor
	boxes     runbox.Cache
	sessions  cwdtrack.Cache
	loads     atomic.Int64 // policy loads, for tests
	stats     atomic.Int64 // policy files' identities taken, for tests
	// realPaths caches the real paths of vtexec's own directories, which
	// are the user's: no command vtexec allows can change what they
	// resolve to (it would have to write where they lie, which the check
	// keeps out of every workspace), so one resolution serves every
	// request (a check --jsonl stream makes thousands).
	realPaths sync.Map
	// reals holds the sessions directory's real path under a watch (see
	// watchedReal); the directories above are kept in realPaths, unwatched.
	reals dirwatch.Kept[string, string]
	// log is the audit log kept open between requests (see auditLog).
	logMu sync.Mutex
	log   *keptLog
	// settle is how long a policy file must have stayed unchanged before
	// the policy loaded from it is kept by its identity (see settle).
	settle time.Duration
	// afterRun, if set, is called once a command has run (a test's fault
	// injection).
	afterRun func(*state)
	// decideFault, if set, runs first in every decision (a test's fault
	// of vtexec's own outside the checker).
	decideFault func(src string)
	// keepReady: see Config.KeepReady.
	keepReady bool
}

// Config sets up an Engine. The zero Config is what the CLI uses.
type Config struct {
	// TrustedPath replaces the directories programs are looked up in.
	// It exists for tests, which put stand-ins for programs a machine
	// may lack in front of the system's directories; no face sets it
	// from a flag, the environment or a policy file.
	TrustedPath string
	// KeepReady says the Engine serves many requests (a server): where
	// every program needs a helper process of its own (without root),
	// the helper for the next one is started ahead, while the caller
	// waits for the next request.
	KeepReady bool
}

// NewEngine returns an Engine set up by cfg.
func NewEngine(cfg Config) *Engine {
	return &Engine{checker: execpolicy.Checker{TrustedPath: cfg.TrustedPath}, policies: map[string]*cachedPolicy{}, settle: settle, keepReady: cfg.KeepReady}
}

// Close releases what the Engine keeps between requests: its boxes'
// rulesets, namespaces and cgroups. Requests still running finish first.
func (e *Engine) Close() error {
	runbox.Wait()
	e.boxes.CloseAll()
	e.mu.Lock()
	e.forgetPolicies()
	e.mu.Unlock()
	e.closeKeptLog()
	return nil
}

// Check decides on req without running anything and without asking.
func (e *Engine) Check(ctx context.Context, req Request) (Decision, error) {
	dirwatch.RequestBegins()
	if e.keepReady {
		defer confine.NoteRequest() // it ends: see prepare
	}
	st, err := e.prepare(req)
	if err != nil {
		return Decision{}, err
	}
	defer st.closeLog()
	d := st.decision()
	rec := audit.Record{Kind: audit.KindDecision, Decision: string(d.Decision), Code: d.Code, Reason: d.Reason, Hint: d.Hint, Rule: d.Rule, RuleFile: d.RuleFile}
	if req.HoldAudit {
		d.held = st.hold(rec)
	} else {
		st.audit(rec)
	}
	st.countProbe()
	if req.WantApprovalID && d.Decision == VerdictAsk && st.rt == nil {
		id, err := newApprovalID(st.question(d), req.Session, time.Now())
		if err != nil {
			st.warn(codes.ApprovalIdFailed, "no approval id could be made: "+err.Error())
		}
		d.ApprovalID = id
	}
	d.Warnings = st.warnings
	return d, nil
}

// PrepareRun begins, in the background, what a process's one confined
// run will need whatever its command and workspace (without root, the
// namespaces its programs share: confine.PrepareNamespaces), so that it
// overlaps with the process's own start. A command-line run calls it
// first thing.
func PrepareRun() { confine.PrepareNamespaces() }

// Run checks req, asks req.Approver if the decision is ask, and runs the
// command if it is then allowed. A refused command is not an error: the
// Result carries the decision and exit code ExitRefused.
func (e *Engine) Run(ctx context.Context, req Request) (Result, error) {
	if e.keepReady {
		defer confine.NoteRequest() // it ends: see prepare
	}
	var early *runbox.EarlyDirs
	if req.Workspace != "" {
		if root, err := filepath.EvalSymlinks(req.Workspace); err == nil {
			if root, err = filepath.Abs(root); err == nil {
				// While the command is checked: the run's directories, and
				// the network namespace.
				early = runbox.StartDirs(root)
				if req.Confinement != string(confine.ModeOff) && e.keepReady {
					confine.Warm(root)
				} else if req.Confinement != string(confine.ModeOff) {
					if dir, err := runbox.KeeperDir(); err == nil {
						confine.KeepNamespacesIn(dir)
					}
					confine.WarmOnce(root) // one request, one box
				}
			}
		}
	}
	defer early.Discard() // unless the box took them
	st, err := e.prepare(req)
	if err != nil {
		return Result{}, err
	}
	phase.Mark("checked")
	defer st.closeLog()
	d := st.decision()
	st.countProbe()
	if st.rt != nil && d.Decision != VerdictDeny {
		// Each command is checked, and asked about, when it is reached;
		// those known before the run that ask are asked about first.
		askedFirst := st.rt.staticAsks || (len(st.rt.mayAsk) > 0 && req.Approver == nil)
		if askedFirst {
			// Without a person, refused here, naming what to approve.
			if d, err = st.ask(ctx, req.Approver, d); err != nil {
				return Result{}, err
			}
			st.rt.approved = st.askingParts()
		}
		st.audit(audit.Record{Kind: audit.KindDecision, Decision: string(d.Decision), Code: d.Code, Reason: d.Reason, Hint: d.Hint, Approval: d.Approval})
		if req.Decided != nil {
			req.Decided(d, st.ws.Cwd())
		}
		if askedFirst && !d.Allowed() {
			return Result{Decision: d, ExitCode: ExitRefused, Cwd: st.ws.Cwd(), Marker: st.marker(ExitRefused), Warnings: st.warnings}, nil
		}
		return st.runInterpreter(ctx, d, early)
	}
	asked := d.Decision == VerdictAsk
	if asked {
		d, err = st.ask(ctx, req.Approver, d)
		if err != nil {
			return Result{}, err
		}
	}
	st.audit(audit.Record{Kind: audit.KindDecision, Decision: string(d.Decision), Code: d.Code, Reason: d.Reason, Hint: d.Hint, Rule: d.Rule, RuleFile: d.RuleFile, Approval: d.Approval})
	if req.Decided != nil {
		req.Decided(d, st.ws.Cwd())
	}
	if !d.Allowed() {
		return Result{Decision: d, ExitCode: ExitRefused, Cwd: st.ws.Cwd(), Marker: st.marker(ExitRefused), Warnings: st.warnings}, nil
	}
	bx, group, err := st.openBoxGroup(early)
	if err != nil {
		return Result{}, err
	}
	phase.Mark("box")
	defer bx.Close()
	defer group.Close()
	startCwd := st.ws.Cwd()
	absent := confine.AbsentGitFiles(bx.GitDirs())
	oomBefore := group.OOMKills()
	watch := st.watchPlants(bx)
	res, err := runner.Run(ctx, st.decided.Plan, st.ws, runner.Options{
		Timeout:   pick(req.Timeout, st.pol.Timeout, DefaultTimeout),
		MaxOutput: pick(req.MaxOutput, st.pol.MaxOutput, DefaultMaxOutput),
		Recheck:   st.recheck(asked),
		Launcher:  runner.Boxed{Box: bx.Box, Group: group},
		TrustedPath: func() string {
			if len(st.extra) == 0 {
				return ""
			}
			return st.checker.Path()
		}(),
		Environ:  bx.Environ(),
		ExtraEnv: bx.ExtraEnv(),
		Output:   started(req.Started),
		Terminal: req.Terminal,
	})
	phase.Mark("ran")
	report := bx.ReportFor(st.decided.Plan)
	disarmed := st.disarm(bx, watch.Stop(), absent)
	st.keepReady(bx)
	if err != nil {
		return Result{Decision: d, Cwd: st.ws.Cwd(), Confinement: &report}, err
	}
	if e.afterRun != nil {
		e.afterRun(st)
	}
	var stopped *Stop
	errors.As(res.Stopped, &stopped)
	var notReached *runner.DirNotReached
	if errors.As(res.Stopped, &notReached) {
		stopped = &Stop{Argv: notReached.Argv, Code: CodeDirNotReached,
			Reason: fmt.Sprintf("it was checked to run in %s, but a cd before it did not run, failed, or led elsewhere, so the run is in %s", st.ws.Rel(notReached.Checked), st.ws.Rel(notReached.Actual)),
			Hint:   "join the cd to what must run there with && (cd DIR && COMMAND), or run the cd in a call of its own"}
	}
	// From here on the command has run: a failure is a warning.
	st.afterBoxedRun(bx, &report, group, oomBefore, res.ExitCode, res.Stderr, res.Lost)
	if res.Failed != nil {
		st.warn(codes.RunIncomplete, "a later part could not be started, so the run stopped there (exit 126); the parts before it ran: "+res.Failed.Error())
	}
	if req.KeepCwd {
		res.Cwd = startCwd
	} else if err := st.saveCwd(res.Cwd); err != nil {
		st.warn(codes.SessionNotSaved, "the session's new cwd was not saved (the next call starts in the old one): "+err.Error())
	}
	exit := res.ExitCode
	var stopCode string
	if stopped != nil {
		stopCode = stopped.Code
	}
	st.audit(audit.Record{Kind: audit.KindExecution, Decision: string(d.Decision), Code: stopCode, ExitCode: &exit, DurationMs: res.Duration.Milliseconds(),
		BytesOut: res.StdoutBytes + res.StderrBytes, Truncated: res.Truncated, TimedOut: res.TimedOut})
	return Result{
		Decision:    d,
		ExitCode:    res.ExitCode,
		Stdout:      res.Stdout,
		Stderr:      res.Stderr,
		Truncated:   res.Truncated,
		TimedOut:    res.TimedOut,
		DurationMs:  res.Duration.Milliseconds(),
		Cwd:         res.Cwd,
		Stopped:     stopped,
		Confinement: &report,
		Disarmed:    disarmed,
		Marker:      st.marker(res.ExitCode),
		Warnings:    st.warnings,
	}, nil
}

// started adapts a Request's Started to the runner's Output.
func started(f func(func() (string, string))) func(stdout, stderr *runner.Capture) {
	if f == nil {
		return nil
	}
	return func(stdout, stderr *runner.Capture) {
		f(func() (string, string) { return stdout.String(), stderr.String() })
	}
}

// pick returns the first non-zero value.
func pick[T comparable](vals ...T) T {
	var zero T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
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
	case strings.IndexByte(req.Command, 0) >= 0:
		return "", badRequest("remove the NUL byte; no shell command can contain one",
			"the command contains a NUL byte at offset %d", strings.IndexByte(req.Command, 0))
	case strings.Contains(req.Command, "\r\n"):
		return "", badRequest("end lines with LF alone; bash keeps a CR before LF as part of the word, the parser would drop it",
			"the command has a CR LF line ending at offset %d", strings.Index(req.Command, "\r\n"))
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
	return ws, nil
}

func chdir(ws *workspace.Workspace, dir, what string) error {
	if err := ws.Chdir(dir); err != nil {
		var be *workspace.BoundaryError
		if errors.As(err, &be) {
			return badRequest(be.Hint(), "%s: %v", what, err)
		}
		return badRequest("use a directory inside the workspace", "%s: %v", what, err)
	}
	return nil
}

// sessionStore is where sessions live.
func sessionStore() (cwdtrack.Store, error) {
	dir, err := StateDir()
	if err != nil {
		return cwdtrack.Store{}, err
	}
	return cwdtrack.Store{Dir: dir + "/sessions"}, nil
}

// EndSession forgets session id: its cwd and its "session" approvals. A
// face calls it when the session's client goes away (vtexec serve at the
// end of a connection).
func EndSession(id string) error {
	store, err := sessionStore()
	if err != nil {
		return err
	}
	return store.Remove(id)
}
