package vtexec

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vtexec/vtexec/audit"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/runbox"
	"github.com/vtexec/vtexec/interpreter"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/runner"
)

// interpreterRun is one request running in the interpreter: each command
// it reaches is checked, asked about and run through these.
type interpreterRun struct {
	st     *state
	single *runner.Single
	// mu makes the checks (and questions to a person) of a pipeline's
	// commands, which the interpreter reaches at once, one at a time.
	mu sync.Mutex
}

// runInterpreter runs a run-time request in the interpreter, in the
// request's box. d is the request's decision (allow, or an ask only the
// run can settle).
func (st *state) runInterpreter(ctx context.Context, d Decision, early *runbox.EarlyDirs) (Result, error) {
	st.decided.Plan = st.rt.boxPlan()
	bx, group, err := st.openBoxGroup(early)
	if err != nil {
		return Result{}, err
	}
	defer bx.Close()
	defer group.Close()
	absent := confine.AbsentGitFiles(bx.GitDirs())
	oomBefore := group.OOMKills()
	watch := st.watchPlants(bx)

	timeout := pick(st.req.Timeout, st.pol.Timeout, DefaultTimeout)
	maxOut := pick(st.req.MaxOutput, st.pol.MaxOutput, DefaultMaxOutput)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	trusted := ""
	if len(st.extra) > 0 {
		trusted = st.checker.Path()
	}
	ir := &interpreterRun{st: st, single: runner.NewSingle(runner.Options{
		Launcher: runner.Boxed{Box: bx.Box, Group: group}, Environ: bx.Environ(), ExtraEnv: bx.ExtraEnv(), TrustedPath: trusted,
	})}
	stdout, stderr := runner.NewCapture(maxOut), runner.NewCapture(maxOut)
	if f := started(st.req.Started); f != nil {
		f(stdout, stderr)
	}
	req := interpreter.Request{File: st.rt.file, Dir: st.ws.Cwd(), Env: ir.single.Environ(), Stdout: stdout, Stderr: stderr}
	if interpreter.ProcessSubstitution(st.rt.file) {
		dir, remove, err := bx.PipeDir()
		if err == nil {
			err = st.ws.AddRoot(dir, false) // the commands read the pipes
		}
		if err != nil {
			return Result{}, &RequestError{Code: codes.BadState, Reason: "a directory for the pipes of <(…): " + err.Error(), Hint: "make the system's temporary directory writable"}
		}
		defer remove()
		req.PipeDir = dir
	}
	if t := st.req.Terminal; t != nil {
		req.Stdin, req.Stdout, req.Stderr = t, t, t
	}
	start := time.Now()
	out, err := interpreter.Run(runCtx, req, ir.hooks())
	duration := time.Since(start)
	timedOut := runCtx.Err() != nil && ctx.Err() == nil || errors.Is(err, context.DeadlineExceeded)
	if err != nil && !timedOut && ctx.Err() == nil {
		stderr.Write([]byte("vtexec: " + err.Error() + "\n"))
	}
	exit := out.Exit
	if timedOut {
		exit = 124
	} else if err != nil && out.Stopped == nil {
		exit = 1
	}
	plan := st.decided.Plan
	report := bx.ReportFor(plan)
	disarmed := st.disarm(bx, watch.Stop(), absent)
	// It ran: each command it reached was decided on its own, and one a
	// person refused is the stop.
	d.Decision, d.Code, d.Reason, d.Hint, d.Asks = VerdictAllow, "", "", "", nil
	var stopped *Stop
	if s := out.Stopped; s != nil {
		stopped = &Stop{Argv: s.Argv, Code: s.Code, Reason: s.Reason + "; " + ranList(out.Ran), Hint: s.Hint}
		stderr.Write([]byte("vtexec: " + stopped.Error() + "\n"))
	}
	st.afterBoxedRun(bx, &report, group, oomBefore, exit, stderr.String(), 0)
	if out.Dir != "" {
		if err := st.ws.Chdir(out.Dir); err != nil {
			st.warn(codes.SessionNotSaved, "the run ended outside the workspace's directories; the session stays in "+st.ws.Rel(st.ws.Cwd()))
		}
	}
	if st.req.KeepCwd {
		// The caller keeps its own directory.
	} else if err := st.saveCwd(st.ws.Cwd()); err != nil {
		st.warn(codes.SessionNotSaved, "the session's new cwd was not saved (the next call starts in the old one): "+err.Error())
	}
	var stopCode string
	if stopped != nil {
		stopCode = stopped.Code
	}
	st.audit(audit.Record{Kind: audit.KindExecution, Decision: string(d.Decision), Code: stopCode, ExitCode: &exit, DurationMs: duration.Milliseconds(),
		BytesOut: stdout.Total() + stderr.Total(), Truncated: stdout.Truncated() || stderr.Truncated(), TimedOut: timedOut})
	cwd := st.ws.Cwd()
	return Result{
		Decision:    d,
		ExitCode:    exit,
		Stdout:      stdout.String(),
		Stderr:      stderr.String(),
		Truncated:   stdout.Truncated() || stderr.Truncated(),
		TimedOut:    timedOut,
		DurationMs:  duration.Milliseconds(),
		Cwd:         cwd,
		Stopped:     stopped,
		Confinement: &report,
		Disarmed:    disarmed,
		Marker:      st.marker(exit),
		Warnings:    st.warnings,
	}, nil
}

func (ir *interpreterRun) hooks() interpreter.Hooks {
	return interpreter.Hooks{
		Check: ir.check,
		Exec: func(ctx context.Context, prepared any, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
			c, _ := prepared.(plan.Cmd)
			return ir.single.Exec(ctx, c, stdin, stdout, stderr)
		},
		Open:    ir.open,
		Inside:  ir.inside,
		Builtin: ir.builtin,
	}
}

// check decides one command the interpreter reached, with its final
// words, in dir: the static check of exactly that command, the policy,
// the session's approvals, and a person when it asks.
func (ir *interpreterRun) check(ctx context.Context, argv []string, dir string, env []string) interpreter.Verdict {
	src, err := quoteArgv(env, argv)
	if err != nil {
		return interpreter.Verdict{Code: codes.BadRequest, Reason: err.Error(), Hint: "strip NUL bytes from the words"}
	}
	d, decided, err := ir.decide(ctx, src, dir)
	if err != nil {
		return interpreter.Verdict{Code: codes.InternalError, Reason: err.Error(), Hint: "vtexec itself failed; report it"}
	}
	if !d.Allowed() {
		return interpreter.Verdict{Code: d.Code, Reason: d.Reason, Hint: d.Hint}
	}
	cmds := decided.Plan.Commands()
	if len(cmds) != 1 || cmds[0].Program == "" {
		return interpreter.Verdict{Code: codes.ControlFlow, Reason: DisplayArgv(argv) + " did not check as one program", Hint: "run programs directly"}
	}
	c := cmds[0]
	if decided.Network[0] {
		return interpreter.Verdict{Code: codes.NetworkUnavailable, Reason: DisplayArgv(argv) + " was granted the network, which a command whose words are known only at run time does not get",
			Hint: "run it in a call of its own, with its words written out"}
	}
	if c.Git && len(c.Asks) > 0 {
		return interpreter.Verdict{Code: codes.GitWrites, Reason: DisplayArgv(argv) + " writes the repository's history, which the box of a run-time request keeps read-only",
			Hint: "run it in a call of its own, with its words written out"}
	}
	return interpreter.Verdict{Allow: true, Prepared: c}
}

// decide checks src in dir as a request of its own and asks about it if
// it must; a person's "session" and "always" are recorded as for any
// request.
func (ir *interpreterRun) decide(ctx context.Context, src, dir string) (Decision, *execpolicy.Decided, error) {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	st := ir.st
	sub := *st
	sub.src, sub.rt = src, nil
	sub.ws = st.ws.Clone()
	if err := sub.ws.Chdir(dir); err != nil {
		return Decision{Decision: VerdictDeny, Code: codes.OutsideWorkspace, Reason: err.Error(), Hint: "stay inside the workspace"}, nil, nil
	}
	sub.ws.SetBudget(checkBudget(st.req))
	sub.decided = st.applied(src, sub.ws)
	sub.holdEscalated()
	d := sub.decision()
	sub.countProbe()
	if d.Decision == VerdictAsk && st.rt.preApproved(sub.decided.Parts) {
		// Approved before the run, exactly so.
		d.Decision, d.Code, d.Reason, d.Hint, d.Approval = VerdictAllow, "", "", "", string(AnswerOnce)
	} else if d.Decision == VerdictAsk {
		var err error
		if d, err = sub.ask(ctx, st.req.Approver, d); err != nil {
			return d, nil, err
		}
	}
	sub.audit(audit.Record{Kind: audit.KindDecision, Decision: string(d.Decision), Code: d.Code, Reason: d.Reason, Hint: d.Hint, Rule: d.Rule, RuleFile: d.RuleFile, Approval: d.Approval})
	st.warnings, st.sess, st.note = sub.warnings, sub.sess, sub.note
	return d, sub.decided, nil
}

// open opens a redirect's file: checked as the redirect of a command
// that does nothing would be, then opened beneath the workspace without
// following a link.
func (ir *interpreterRun) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	q, err := quoteArgv(nil, []string{path})
	if err != nil {
		return nil, &interpreter.Stop{Argv: []string{path}, Code: codes.BadRequest, Reason: err.Error(), Hint: "strip NUL bytes from the path"}
	}
	op := "<"
	switch {
	case flag&os.O_APPEND != 0:
		op = ">>"
	case flag&(os.O_WRONLY|os.O_RDWR) != 0:
		op = ">"
	}
	d, _, err := ir.decide(ctx, ": "+op+" "+q, filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if !d.Allowed() {
		return nil, &interpreter.Stop{Argv: []string{path}, Code: d.Code, Reason: d.Reason, Hint: d.Hint}
	}
	f, err := runner.OpenBeneath(path, flag, ir.st.ws)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// inside: globs and tests read only the workspace, through no link that
// leads out of it.
func (ir *interpreterRun) inside(path string) bool {
	ws := ir.st.ws
	if !ws.Contains(filepath.Clean(path)) {
		return false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return true // missing: a stat says so
	}
	return ws.Contains(real)
}

// builtin allows the builtins that only print or test: what vtexec's
// own echo, printf, test, true, false and pwd do.
func (ir *interpreterRun) builtin(_ context.Context, argv []string, _ string) interpreter.Verdict {
	if inertBuiltin(argv) {
		return interpreter.Verdict{Allow: true}
	}
	return interpreter.Verdict{Code: codes.ShellBuiltin, Reason: argv[0] + " is a shell builtin vtexec's interpreter does not run: it would change what runs in ways vtexec cannot check", Hint: "run programs directly"}
}
