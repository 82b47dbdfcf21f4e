package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/progenv"
	"github.com/vtexec/vtexec/workspace"
)

// Single runs checked commands one at a time with streams its caller
// owns: the commands of vtexec's interpreter, which reaches each of them
// in its own time. Each runs as a pipeline of one does in Run: the same
// environment, launcher and box, in a process group of its own that is
// killed once the command ends, and stopped with SIGTERM, then SIGKILL,
// when ctx ends.
type Single struct {
	opts Options
	env  []string
}

// NewSingle returns a Single for opts (Timeout, MaxOutput, Recheck,
// Output and Terminal are not used: the caller bounds time and output).
func NewSingle(opts Options) *Single {
	opts = opts.withDefaults()
	return &Single{opts: opts, env: progenv.WithPath(progenv.WithExtra(progenv.Env(opts.Environ), opts.ExtraEnv), opts.TrustedPath)}
}

// Environ is the environment every command gets (before its settings):
// the interpreter's own, so that $HOME and $PATH read as the programs see
// them.
func (s *Single) Environ() []string { return append([]string(nil), s.env...) }

// Exec runs c, which must be a program (not a builtin), with stdin,
// stdout and stderr (nil stdin reads /dev/null), and returns its shell
// status: the exit code, 128+N when killed by signal N, 127 or 126 when
// it could not be started (the reason is written to stderr). It returns
// an error only when ctx ended while it ran.
func (s *Single) Exec(ctx context.Context, c plan.Cmd, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if c.Builtin != "" || c.Program == "" {
		return 126, fmt.Errorf("runner: %s is not a program", c.Argv[0])
	}
	cmd := s.opts.Launcher.Command(c, progenv.WithSettings(s.env, c.Env))
	if cmd == nil {
		fmt.Fprintf(stderr, "vtexec: %s: the launcher could not prepare the command\n", c.Program)
		return 126, nil
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	// A descendant that leaves the group and keeps a stream open must
	// not hold the interpreter past this.
	cmd.WaitDelay = maxDrainTime
	proc, err := s.opts.Launcher.Start(c, cmd, nil)
	if err != nil {
		fmt.Fprintf(stderr, "vtexec: %v\n", err)
		return startStatus(err), nil
	}
	done := make(chan error, 1)
	go func() { done <- proc.Wait() }()
	pgid := proc.Pid()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		stop(proc, pgid, syscall.SIGTERM)
		wait := s.opts.Grace
		if endsOnSIGTERM([]int{proc.Pid()}) {
			wait = 0 // it would have ended anywhere else
		}
		grace := time.NewTimer(wait)
		select {
		case werr = <-done:
		case <-grace.C:
			stop(proc, pgid, syscall.SIGKILL)
			werr = <-done
		}
		grace.Stop()
		_ = signalGroup(pgid, syscall.SIGKILL)
		return exitStatus(werr), ctx.Err()
	}
	// What the command left running in its group dies with it.
	_ = signalGroup(pgid, syscall.SIGKILL)
	if errors.Is(werr, exec.ErrWaitDelay) {
		werr = nil // the command itself ended; a stray descendant held a stream
	}
	return exitStatus(werr), nil
}

// stop signals a command's process group and the command itself.
func stop(proc confine.Process, pgid int, sig syscall.Signal) {
	_ = signalGroup(pgid, sig)
	_ = proc.Signal(sig)
}

// OpenBeneath opens path (absolute) for the interpreter's redirects as
// Run opens a redirect's file: its directory pinned and checked inside
// ws (for a write, not under a protected name), the name opened without
// following a link. flag is os.O_RDONLY, or os.O_WRONLY with os.O_CREATE
// and os.O_TRUNC or os.O_APPEND; anything else is refused.
func OpenBeneath(path string, flag int, ws *workspace.Workspace) (*os.File, error) {
	rd := plan.Redirect{Fd: 1, Path: path}
	switch {
	case flag == os.O_RDONLY:
		rd.Kind, rd.Fd = plan.Read, 0
	case flag&os.O_APPEND != 0 && flag&os.O_WRONLY != 0 && flag&os.O_RDWR == 0:
		rd.Kind = plan.Append
	case flag&os.O_WRONLY != 0 && flag&os.O_TRUNC != 0 && flag&os.O_RDWR == 0:
		rd.Kind = plan.Write
	default:
		return nil, fmt.Errorf("%s: only reading, writing and appending redirects are run (open flags %#x)", path, flag)
	}
	return openRedirect(rd, ws)
}
