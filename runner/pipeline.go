package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/progenv"
	"github.com/vtexec/vtexec/workspace"
)

// pipeline is one pipeline being run: the parent's ends of its pipes, the
// processes started and the status of every command.
type pipeline struct {
	r        *run
	cmds     []plan.Cmd
	devNull  *os.File   // stdin of the first command
	outW     *os.File   // stdout of the last command, read into r.stdout
	errW     *os.File   // stderr of every command, read into r.stderr
	links    []link     // links[i] joins command i to command i+1
	parent   []*os.File // ends the parent closes once every command started
	readEnds []*os.File // read by the capture goroutines, closed after draining
	procs    []confine.Process
	status   []int
	leader   confine.Process // the first process started; nil until then
	pgid     int             // process group of the pipeline; 0 until a process started
}

// link is the pipe between two commands of a pipeline.
type link struct {
	r, w *os.File
}

// pipeline runs one pipeline to its end and returns its status and whether
// it timed out. An error means its pipes could not be opened; nothing ran.
func (r *run) pipeline(ctx context.Context, cmds []plan.Cmd) (int, bool, error) {
	if len(cmds) == 0 {
		return 0, false, nil
	}
	pl := &pipeline{r: r, cmds: cmds, procs: make([]confine.Process, len(cmds)), status: make([]int, len(cmds))}
	if err := pl.open(); err != nil {
		closeFiles(pl.parent)
		closeFiles(pl.readEnds)
		return 0, false, fmt.Errorf("runner: %w", err)
	}
	readersDone := pl.startReaders()
	// Last command first: it leads the pipeline (in a box, it is the
	// init of the pipeline's PID namespace), so the commands upstream of
	// it see a closed pipe, not a dead namespace, when it ends first.
	for i := len(cmds) - 1; i >= 0; i-- {
		if ctx.Err() != nil {
			pl.status[i] = timeoutStatus
			continue
		}
		pl.start(i)
	}
	closeFiles(pl.parent)
	timedOut := pl.wait(ctx)
	pl.killGroup()
	pl.drain(readersDone)
	return pl.status[len(cmds)-1], timedOut, nil
}

// open opens /dev/null, the two capture pipes and the pipes between
// commands, recording every file so the caller can close them on error.
func (pl *pipeline) open() error {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	pl.devNull = devNull
	pl.parent = append(pl.parent, devNull)
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	pl.outW = outW
	pl.parent, pl.readEnds = append(pl.parent, outW), append(pl.readEnds, outR)
	errR, errW, err := os.Pipe()
	if err != nil {
		return err
	}
	pl.errW = errW
	pl.parent, pl.readEnds = append(pl.parent, errW), append(pl.readEnds, errR)
	for range len(pl.cmds) - 1 {
		lr, lw, err := os.Pipe()
		if err != nil {
			return err
		}
		pl.links = append(pl.links, link{r: lr, w: lw})
		pl.parent = append(pl.parent, lr, lw)
	}
	return nil
}

// startReaders copies the capture pipes into the run's captures and returns
// a channel closed once both copies have ended.
func (pl *pipeline) startReaders() <-chan struct{} {
	var wg sync.WaitGroup
	wg.Go(func() { copyInto(pl.r.stdout, pl.readEnds[0]) })
	wg.Go(func() { copyInto(pl.r.stderr, pl.readEnds[1]) })
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// copyInto copies src into dst until EOF or until src is closed.
func copyInto(dst *Capture, src *os.File) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			dst.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// baseFds returns command i's stdin, stdout and stderr before its own
// redirects: the pipeline's, as the group it is in redirected them.
func (pl *pipeline) baseFds(i int) [3]*os.File {
	own := [3]*os.File{pl.devNull, pl.outW, pl.errW}
	if t := pl.r.opts.Terminal; t != nil {
		own = [3]*os.File{t, t, t}
	}
	var std [3]*os.File
	for fd, e := range pl.r.fds {
		std[fd] = e.f
		if e.f == nil {
			std[fd] = own[e.fd]
		}
	}
	in, out, errs := std[0], std[1], std[2]
	if i > 0 {
		in = pl.links[i-1].r
	}
	if i < len(pl.cmds)-1 {
		out = pl.links[i].w
	}
	return [3]*os.File{in, out, errs}
}

// start applies command i's redirects and runs it: a builtin to completion
// in-process, a program by starting it in the pipeline's process group. A
// command that cannot run gets its status here and a message on stderr.
func (pl *pipeline) start(i int) {
	c := pl.cmds[i]
	fds, opened, err := applyRedirects(pl.baseFds(i), c.Redirects, pl.r.ws)
	defer closeFiles(opened)
	if err != nil {
		pl.report(err)
		pl.status[i] = 1
		return
	}
	if c.Builtin != "" {
		pl.status[i] = pl.builtin(c, fds[1], fds[2])
		return
	}
	cmd := pl.r.opts.Launcher.Command(c, progenv.WithSettings(pl.r.env, c.Env))
	if cmd == nil {
		pl.report(fmt.Errorf("%s: the launcher could not prepare the command", c.Program))
		pl.status[i] = 126
		return
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = fds[0], fds[1], fds[2]
	proc, err := pl.r.opts.Launcher.Start(c, cmd, pl.leader)
	switch {
	case errors.Is(err, confine.ErrPipelineEnded):
		// As in bash, it would have died writing to a closed pipe.
		pl.status[i] = 128 + int(syscall.SIGPIPE)
		return
	case err != nil:
		pl.report(err)
		pl.status[i] = startStatus(err)
		return
	}
	if pl.leader == nil {
		pl.leader, pl.pgid = proc, proc.Pid()
	}
	pl.procs[i] = proc
}

// report writes one line from vtexec itself to the captured stderr,
// whatever the command's redirects say, so it is never lost.
func (pl *pipeline) report(err error) {
	fmt.Fprintf(pl.errW, "vtexec: %v\n", err)
}

// startStatus is the shell's status for a program that could not start:
// 126 if it was found but could not be executed, else 127.
func startStatus(err error) int {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOEXEC) || errors.Is(err, syscall.EISDIR) {
		return 126
	}
	return 127
}

// wait waits for every process of the pipeline and records its status.
// If ctx ends first, it sends SIGTERM, then SIGKILL after the grace period,
// waits for the processes to die and reports true.
func (pl *pipeline) wait(ctx context.Context) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, proc := range pl.procs {
			if proc != nil {
				pl.status[i] = exitStatus(proc.Wait())
			}
		}
	}()
	select {
	case <-done:
		return false
	case <-ctx.Done():
	}
	select {
	case <-done:
		return false
	default:
	}
	pl.signal(syscall.SIGTERM)
	if !pl.endsOnSIGTERM() {
		grace := time.NewTimer(pl.r.opts.Grace)
		defer grace.Stop()
		select {
		case <-done:
		case <-grace.C:
		}
	}
	pl.signal(syscall.SIGKILL)
	<-done
	return true
}

// endsOnSIGTERM reports whether the SIGTERM just sent would have ended
// the whole pipeline anywhere but in its box (see endsOnSIGTERM): it is
// killed at once instead of after the grace.
func (pl *pipeline) endsOnSIGTERM() bool {
	var pids []int
	for _, proc := range pl.procs {
		if proc != nil {
			pids = append(pids, proc.Pid())
		}
	}
	return len(pids) > 0 && endsOnSIGTERM(pids)
}

// signal sends sig to the pipeline's process group, and to each process
// started, in case it left the group.
func (pl *pipeline) signal(sig syscall.Signal) {
	if pl.pgid != 0 {
		_ = signalGroup(pl.pgid, sig)
	}
	for _, proc := range pl.procs {
		if proc != nil {
			_ = proc.Signal(sig)
		}
	}
}

// killGroup kills whatever is left of the pipeline's process group, such as
// a command's background children, once the commands themselves are done.
func (pl *pipeline) killGroup() {
	if pl.pgid != 0 {
		_ = signalGroup(pl.pgid, syscall.SIGKILL)
	}
}

// drain waits until the capture goroutines have read everything the
// pipeline wrote: until both pipes are closed by every writer, or, once
// drainTime has passed, until they are empty (a descendant that left the
// group may hold one open, and must not make the run hang). Bytes still
// in a pipe are never dropped on a guess: only after maxDrainTime, with a
// writer still at it, are the pipes closed, and what they held is
// counted as lost.
func (pl *pipeline) drain(readersDone <-chan struct{}) {
	start := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-readersDone:
			closeFiles(pl.readEnds)
			return
		case <-tick.C:
		}
		waited := time.Since(start)
		pending := pendingBytes(pl.readEnds)
		if (waited >= drainTime && pending == 0) || waited >= maxDrainTime {
			pl.r.lost += int64(pending)
			break
		}
	}
	closeFiles(pl.readEnds)
	<-readersDone
}

// exitStatus converts the result of Wait into a shell status: the exit
// code, or 128+N for a process killed by signal N.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 1
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// builtin carries out a builtin command and returns its status. As in bash,
// a builtin inside a multi-command pipeline runs in a subshell, so there cd
// changes a copy of the workspace and the real one keeps its directory.
func (pl *pipeline) builtin(c plan.Cmd, stdout, stderr io.Writer) int {
	switch c.Builtin {
	case ":":
		return 0
	case "exit":
		return pl.exit(c, stderr)
	case "command -v", "command -V", "type":
		return pl.lookup(c, stdout, stderr)
	case "cd":
	default:
		fmt.Fprintf(stderr, "vtexec: unknown builtin %q\n", c.Builtin)
		return 127
	}
	ws := pl.r.ws
	if len(pl.cmds) > 1 {
		ws = ws.Clone()
	}
	return cd(ws, c, stderr)
}

// vtexecBuiltins are the names vtexec carries out itself.
var vtexecBuiltins = map[string]bool{"cd": true, ":": true, "exit": true, "command": true, "type": true}

// lookup answers command -v, command -V and type for each name, as
// bash does, from the PATH commands run with: 1 if a name is neither a
// builtin nor found.
func (pl *pipeline) lookup(c plan.Cmd, out, stderr io.Writer) int {
	path := ""
	for _, kv := range pl.r.env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	status := 0
	names := c.Argv[1:]
	if c.Builtin != "type" {
		names = c.Argv[2:]
	}
	for _, name := range names {
		found := ""
		if !strings.Contains(name, "/") {
			found, _ = plan.LookPath(name, path)
		}
		switch {
		case vtexecBuiltins[name] && c.Builtin == "command -v":
			fmt.Fprintln(out, name)
		case vtexecBuiltins[name]:
			fmt.Fprintf(out, "%s is a shell builtin\n", name)
		case found != "" && c.Builtin == "command -v":
			fmt.Fprintln(out, found)
		case found != "":
			fmt.Fprintf(out, "%s is %s\n", name, found)
		default:
			status = 1
			if c.Builtin != "command -v" {
				fmt.Fprintf(stderr, "%s: %s: not found\n", c.Argv[0], name)
			}
		}
	}
	return status
}

// exit returns its status, N or else the status of the last pipeline
// run; alone, not in a pipeline (a subshell there), it also ends the run.
func (pl *pipeline) exit(c plan.Cmd, stderr io.Writer) int {
	status := pl.r.status
	if len(c.Argv) > 1 {
		n, err := strconv.Atoi(c.Argv[1])
		if err != nil || n < 0 || n > 255 {
			fmt.Fprintf(stderr, "exit: %s: a status from 0 to 255 is required\n", c.Argv[1])
			return 2
		}
		status = n
	}
	if len(pl.cmds) == 1 {
		pl.r.exited = true
	}
	return status
}

// cd moves ws to the directory in c.Argv[1] (relative to ws's, which is
// c.Dir: see inCheckedDir); ws.Chdir checks again that it lies inside
// the workspace. On failure it writes "cd: <error>" to stderr and
// returns 1.
func cd(ws *workspace.Workspace, c plan.Cmd, stderr io.Writer) int {
	if len(c.Argv) != 2 || c.Argv[1] == "" || strings.HasPrefix(c.Argv[1], "-") {
		fmt.Fprintf(stderr, "cd: usage: cd DIR\n")
		return 1
	}
	if err := ws.Chdir(c.Argv[1]); err != nil {
		fmt.Fprintf(stderr, "cd: %v\n", err)
		return 1
	}
	return 0
}

// closeFiles closes every file, ignoring errors: they are the parent's
// copies, and the data written through them is the children's business.
func closeFiles(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
