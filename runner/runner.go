package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/progenv"
	"github.com/vtexec/vtexec/workspace"
)

const (
	defaultTimeout   = 30 * time.Second
	defaultGrace     = 500 * time.Millisecond
	defaultMaxOutput = 64 << 10

	// drainTime is how long the end of the output is waited for once every
	// process of a pipeline's group is dead, when the pipes are empty but
	// still open (a descendant that left the group holds one); bytes still
	// in a pipe are read whatever the time, for up to maxDrainTime, after
	// which what is left is counted as lost.
	drainTime    = 200 * time.Millisecond
	maxDrainTime = 5 * time.Second

	// timeoutStatus is the exit code of a run that timed out, as timeout(1).
	timeoutStatus = 124
)

// Options tunes Run. A zero (or negative) field takes the default given
// in its comment, so the zero Options is ready to use.
type Options struct {
	Timeout   time.Duration // for the whole plan; 0 means 30s
	Grace     time.Duration // between SIGTERM and SIGKILL on timeout; 0 means 500ms
	MaxOutput int           // bytes kept per stream (head+tail); 0 means 64 KiB
	Environ   []string      // source environment to filter; nil means os.Environ()
	// TrustedPath, if set, is the PATH commands run with instead of
	// plan.TrustedPath (the system's and the user's toolchains).
	TrustedPath string
	// ExtraEnv are KEY=VALUE pairs set after filtering, for tool presets
	// the caller chose (GOMODCACHE for an approved go); they cannot
	// replace what Env forces.
	ExtraEnv []string
	Launcher Launcher // nil means Direct
	// Recheck, if set, is called before each step starts with the step's
	// index and commands. An error stops the run there: nothing of that
	// step or later runs, the error is written to stderr, and the Result
	// has Stopped set and ExitCode 126.
	Recheck func(step int, cmds []plan.Cmd) error
	// Output, if set, is called once before the first step with the
	// captures the run writes to; they may be read while it goes on.
	Output func(stdout, stderr *Capture)
	// Terminal, if set, is a terminal (a pseudo-terminal's far end) that
	// every pipeline reads as stdin and writes its stdout and stderr to,
	// in place of /dev/null and the captures; the captures then keep
	// only vtexec's own messages. The caller keeps it open until Run
	// returns.
	Terminal *os.File
}

// withDefaults returns o with every zero field replaced by its default.
func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.Grace <= 0 {
		o.Grace = defaultGrace
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = defaultMaxOutput
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.Launcher == nil {
		o.Launcher = Direct{}
	}
	return o
}

// Result is the outcome of a run.
type Result struct {
	ExitCode    int    // status of the last pipeline run; 124 on timeout
	Stdout      string // kept stdout of all commands (see Capture.String)
	Stderr      string // kept stderr of all commands and vtexec's own messages
	StdoutBytes int64  // total bytes the commands wrote to stdout, kept or not
	StderrBytes int64  // total bytes written to stderr, kept or not
	Truncated   bool   // some output was omitted
	// Lost counts bytes the commands wrote that were still in a pipe when
	// Run stopped reading it (a process outside the group kept writing).
	Lost     int64
	TimedOut bool          // the timeout expired or ctx was cancelled
	Duration time.Duration // wall time of the run
	Cwd      string        // the workspace cwd after the run
	Stopped  error         // what Options.Recheck returned, if it stopped the run
	// Failed is why a later step could not be started (its pipes or
	// /dev/null could not be opened); the steps before it ran.
	Failed error
}

// failedStatus is the exit code of a run a later step of which could not
// be started.
const failedStatus = 126

// stoppedStatus is the exit code of a run that Recheck stopped, as a shell
// reports a command found but not run.
const stoppedStatus = 126

// Run executes p without a shell and returns what happened. Steps run in
// order with bash's rules: a Seq step always runs, an And step only if the
// previous status was 0, an Or step only if it was not. A pipeline's status
// is that of its last command; a command killed by signal N has status
// 128+N; one that cannot be started has status 127 (126 for a permission or
// format error) and one whose redirect fails has status 1, and the run goes
// on. Every pipeline runs in its own process group with stdin /dev/null, and
// the group is killed with SIGKILL once the pipeline ends, so no descendant
// outlives it. When the timeout expires or ctx is done, the running group
// gets SIGTERM, then SIGKILL after the grace period, no later step runs,
// and the Result has TimedOut set and ExitCode 124.
//
// The builtin cd changes ws, which must not be used concurrently. Run
// returns an error only if p or ws is nil or if pipes or /dev/null cannot be
// opened for the first step; a failing command is not an error. If they
// cannot be opened for a later step, the run stops there with status 126
// and Result.Failed, keeping what the steps before it did.
func Run(ctx context.Context, p *plan.Plan, ws *workspace.Workspace, opts Options) (*Result, error) {
	if p == nil || ws == nil {
		return nil, errors.New("runner: nil plan or workspace")
	}
	start := time.Now()
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	r := &run{
		ws:     ws,
		opts:   opts,
		env:    progenv.WithPath(progenv.WithExtra(progenv.Env(opts.Environ), opts.ExtraEnv), opts.TrustedPath),
		stdout: NewCapture(opts.MaxOutput),
		stderr: NewCapture(opts.MaxOutput),
		fds:    noGroup,
	}
	if opts.Output != nil {
		opts.Output(r.stdout, r.stderr)
	}
	status, timedOut, ran, err := r.steps(ctx, p)
	var failed error
	switch {
	case err != nil && !ran:
		return nil, err
	case err != nil:
		// Steps ran before this one: their result is kept.
		failed, status = err, failedStatus
		fmt.Fprintf(r.stderr, "vtexec: the run stopped: %v\n", err)
	case r.stopped != nil:
		status = stoppedStatus
	}
	return &Result{
		ExitCode:    status,
		Stdout:      r.stdout.String(),
		Stderr:      r.stderr.String(),
		StdoutBytes: r.stdout.Total(),
		StderrBytes: r.stderr.Total(),
		Truncated:   r.stdout.Truncated() || r.stderr.Truncated() || r.lost > 0,
		Lost:        r.lost,
		TimedOut:    timedOut,
		Duration:    time.Since(start),
		Cwd:         ws.Cwd(),
		Stopped:     r.stopped,
		Failed:      failed,
	}, nil
}

// run is the state shared by the steps of one Run.
type run struct {
	ws      *workspace.Workspace
	opts    Options
	env     []string
	stdout  *Capture
	stderr  *Capture
	stopped error
	status  int   // of the last pipeline run, for exit without N
	exited  bool  // an exit ended the run
	lost    int64 // bytes left unread in a pipe (see drain)
	// fds stands for the standard files of the groups being run, as
	// their own redirects left them (see plan.Group.Redirects).
	fds groupFds
	// open are the groups entered and not yet left, outermost first.
	open []openGroup
}

// groupFds maps standard files: to a file a group's redirects opened,
// or (f nil) to the pipeline's own file numbered fd.
type groupFds [3]struct {
	f  *os.File
	fd int
}

// noGroup leaves every standard file as it is.
var noGroup = groupFds{{fd: 0}, {fd: 1}, {fd: 2}}

// openGroup is a group being run and what entering it changed.
type openGroup struct {
	id     int
	ws     *workspace.Workspace // before a ( ) group; nil for others
	fds    groupFds             // before the group's redirects
	opened []*os.File
}

// enter enters group id: a ( ) group gets a copy of the workspace, whose
// cds are dropped when it ends, and the group's redirects are applied,
// in order, as bash does. On error nothing is entered.
func (r *run) enter(id int, g plan.Group) error {
	og := openGroup{id: id, fds: r.fds}
	fds := r.fds
	for _, rd := range g.Redirects {
		err := error(nil)
		switch {
		case !stdFd(rd.Fd) || rd.Fd == 0 || rd.Kind == plan.Read || rd.Kind == plan.Input:
			err = fmt.Errorf("redirect %d: a group's redirects write its output", rd.Fd)
		case rd.Kind == plan.Dup && !stdFd(rd.DupFd):
			err = fmt.Errorf("redirect %d: only fds 0, 1 and 2 can be redirected", rd.Fd)
		case rd.Kind == plan.Dup:
			fds[rd.Fd] = fds[rd.DupFd]
			continue
		default:
			var f *os.File
			if f, err = openRedirect(rd, r.ws); err == nil {
				og.opened = append(og.opened, f)
				fds[rd.Fd].f = f
			}
		}
		if err != nil {
			closeFiles(og.opened)
			return err
		}
	}
	if g.Subshell {
		og.ws, r.ws = r.ws, r.ws.Clone()
	}
	r.fds = fds
	r.open = append(r.open, og)
	return nil
}

// leave leaves the innermost group entered.
func (r *run) leave() {
	og := r.open[len(r.open)-1]
	r.open = r.open[:len(r.open)-1]
	closeFiles(og.opened)
	r.fds = og.fds
	if og.ws != nil {
		r.ws = og.ws
	}
}

// steps runs the plan's steps in order and returns the last status, and
// whether any step ran before an error. Groups are entered and left as
// bash enters and leaves compound commands (see plan.Group).
func (r *run) steps(ctx context.Context, p *plan.Plan) (status int, timedOut, ran bool, err error) {
	defer func() {
		for len(r.open) > 0 {
			r.leave()
		}
	}()
	entered, skipped := map[int]bool{}, map[int]bool{}
	for i, st := range p.Steps {
		chain := p.Chain(st.Group)
		for len(r.open) > 0 && !slices.Contains(chain, r.open[len(r.open)-1].id) {
			r.leave()
		}
		if slices.ContainsFunc(chain, func(id int) bool { return skipped[id] }) {
			continue
		}
		fresh := chain[len(r.open):] // the groups this step enters
		if !shouldRun(st.Op, status) {
			if len(fresh) > 0 {
				skipped[fresh[0]] = true // the compound is not entered
			}
			continue
		}
		// An else branch whose then branch ran is not entered (those
		// outside it that start here are, with nothing to run yet).
		runs := true
		if k := slices.IndexFunc(fresh, func(id int) bool { e := p.GroupOf(id).ElseOf; return e != 0 && entered[e] }); k >= 0 {
			skipped[fresh[k]], fresh, runs = true, fresh[:k], false
		}
		if runs {
			if err := r.inCheckedDir(st.Pipeline.Cmds); err != nil {
				r.stopped = err
				fmt.Fprintf(r.stderr, "vtexec: %v\n", err)
				return stoppedStatus, false, ran, nil
			}
		}
		for _, id := range fresh {
			if err := r.enter(id, p.GroupOf(id)); err != nil {
				// As bash: the group does not run, and fails.
				fmt.Fprintf(r.stderr, "vtexec: %v\n", err)
				skipped[id], runs = true, false
				status, r.status = 1, 1
				break
			}
			entered[id] = true
		}
		if !runs {
			continue
		}
		if ctx.Err() != nil {
			return timeoutStatus, true, ran, nil
		}
		if r.opts.Recheck != nil {
			if err := r.opts.Recheck(i, st.Pipeline.Cmds); err != nil {
				r.stopped = err
				fmt.Fprintf(r.stderr, "vtexec: %v\n", err)
				return stoppedStatus, false, ran, nil
			}
		}
		s, timedOut, err := r.pipeline(ctx, st.Pipeline.Cmds)
		if err != nil {
			return 0, false, ran, err
		}
		ran = true
		if timedOut {
			return timeoutStatus, true, ran, nil
		}
		if st.Negate && !r.exited { // ! exit N exits with N, as in bash
			s = negated(s)
		}
		status = s
		r.status = s
		if r.exited {
			break
		}
	}
	return status, false, ran, nil
}

// negated is the status of `! PIPELINE` for the pipeline's status s.
func negated(s int) int {
	if s == 0 {
		return 1
	}
	return 0
}

// DirNotReached is a step checked in a directory the run is not in:
// a cd before it, which the check followed, did not run or failed
// (false && cd src; ls). Running it elsewhere would run another command
// than was checked (its paths and globs are the checked directory's).
type DirNotReached struct {
	Argv            []string
	Checked, Actual string
}

func (e *DirNotReached) Error() string {
	return fmt.Sprintf("%s was checked to run in %s, but the run is in %s: a cd before it did not run, failed, or led elsewhere",
		strings.Join(e.Argv, " "), e.Checked, e.Actual)
}

// inCheckedDir reports a command of the pipeline that was checked in
// another directory than the run is in.
func (r *run) inCheckedDir(cmds []plan.Cmd) error {
	for _, c := range cmds {
		if c.Dir != "" && c.Dir != r.ws.Cwd() {
			return &DirNotReached{Argv: c.Argv, Checked: c.Dir, Actual: r.ws.Cwd()}
		}
	}
	return nil
}

func shouldRun(op plan.Op, status int) bool {
	switch op {
	case plan.And:
		return status == 0
	case plan.Or:
		return status != 0
	default:
		return true
	}
}
