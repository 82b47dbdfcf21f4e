//go:build !windows

package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/progenv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
)

func TestPipelineEchoCat(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	p := planOf(step(plan.Seq, command(t, dir, "echo", "hello"), command(t, dir, "cat")))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "hello\n", res.Stdout)
	assert.Equal(t, "", res.Stderr)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, int64(6), res.StdoutBytes)
	assert.False(t, res.Truncated)
	assert.False(t, res.TimedOut)
	assert.Equal(t, ws.Root(), res.Cwd)
}

func TestPipelineThreeCommands(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	p := planOf(step(plan.Seq,
		command(t, dir, "printf", `c\na\nb\n`),
		command(t, dir, "sort"),
		command(t, dir, "head", "-n", "2"),
	))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "a\nb\n", res.Stdout)
	assert.Equal(t, 0, res.ExitCode)
}

func TestListOperators(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	echo := func(s string) plan.Cmd { return command(t, dir, "echo", s) }
	fail, ok := command(t, dir, "false"), command(t, dir, "true")
	tests := []struct {
		name   string
		plan   *plan.Plan
		stdout string
		code   int
	}{
		{"false && echo x", planOf(step(plan.Seq, fail), step(plan.And, echo("x"))), "", 1},
		{"false || echo y", planOf(step(plan.Seq, fail), step(plan.Or, echo("y"))), "y\n", 0},
		{"false ; echo z", planOf(step(plan.Seq, fail), step(plan.Seq, echo("z"))), "z\n", 0},
		{"true && echo a", planOf(step(plan.Seq, ok), step(plan.And, echo("a"))), "a\n", 0},
		{"true || echo b", planOf(step(plan.Seq, ok), step(plan.Or, echo("b"))), "", 0},
		{"echo a ; false", planOf(step(plan.Seq, echo("a")), step(plan.Seq, fail)), "a\n", 1},
		{"false && echo a || echo b", planOf(step(plan.Seq, fail), step(plan.And, echo("a")), step(plan.Or, echo("b"))), "b\n", 0},
		{"true && echo a || echo b", planOf(step(plan.Seq, ok), step(plan.And, echo("a")), step(plan.Or, echo("b"))), "a\n", 0},
		{"empty plan", planOf(), "", 0},
		// A group is an unrolled loop: false && for i in 1 2; do echo $i; done
		{"false && group", planOf(append([]plan.Step{step(plan.Seq, fail)}, grouped(1, step(plan.And, echo("1")), step(plan.Seq, echo("2")))...)...), "", 1},
		{"true && group", planOf(append([]plan.Step{step(plan.Seq, ok)}, grouped(1, step(plan.And, echo("1")), step(plan.Seq, echo("2")))...)...), "1\n2\n", 0},
		{"false && group || echo b", planOf(append(append([]plan.Step{step(plan.Seq, fail)}, grouped(1, step(plan.And, echo("1")), step(plan.Seq, echo("2")))...),
			step(plan.Or, echo("b")))...), "b\n", 0},
		{"group of a failing step ; echo", planOf(append(grouped(1, step(plan.Seq, echo("1")), step(plan.Seq, fail)), step(plan.Seq, echo("z")))...), "1\nz\n", 0},
		// if C; then T; else E; fi
		{"if true then", planOf(append(append([]plan.Step{step(plan.Seq, ok)}, grouped(1, step(plan.And, echo("then")))...),
			elseOf(grouped(2, step(plan.Or, echo("else"))))...)...), "then\n", 0},
		{"if false else", planOf(append(append([]plan.Step{step(plan.Seq, fail)}, grouped(1, step(plan.And, echo("then")))...),
			elseOf(grouped(2, step(plan.Or, echo("else"))))...)...), "else\n", 0},
		{"if true, then fails: no else", planOf(append(append([]plan.Step{step(plan.Seq, ok)}, grouped(1, step(plan.And, fail))...),
			elseOf(grouped(2, step(plan.Or, echo("else"))))...)...), "", 1},
		{"two groups, the first skipped", planOf(append(append([]plan.Step{step(plan.Seq, fail)}, grouped(1, step(plan.And, echo("1")))...),
			grouped(2, step(plan.Seq, echo("2")))...)...), "2\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runPlan(t, tt.plan, ws, Options{})
			assert.Equal(t, tt.stdout, res.Stdout)
			assert.Equal(t, tt.code, res.ExitCode)
		})
	}
}

func TestPipelineStatusIsLastCommand(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	tests := []struct {
		name string
		cmds []plan.Cmd
		code int
	}{
		{"false | true", []plan.Cmd{command(t, dir, "false"), command(t, dir, "true")}, 0},
		{"true | false", []plan.Cmd{command(t, dir, "true"), command(t, dir, "false")}, 1},
		{"exit 3 last", []plan.Cmd{command(t, dir, "true"), command(t, dir, "sh", "-c", "exit 3")}, 3},
		{"killed by SIGKILL", []plan.Cmd{command(t, dir, "sh", "-c", "kill -9 $$")}, 128 + 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runPlan(t, planOf(step(plan.Seq, tt.cmds...)), ws, Options{})
			assert.Equal(t, tt.code, res.ExitCode)
		})
	}
}

func TestStdoutAndStderrOfAllStepsAccumulate(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	p := planOf(
		step(plan.Seq, command(t, dir, "sh", "-c", "echo out1; echo err1 >&2")),
		step(plan.Seq, command(t, dir, "sh", "-c", "echo err2 >&2"), command(t, dir, "sh", "-c", "echo out2")),
	)
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "out1\nout2\n", res.Stdout)
	assert.Equal(t, "err1\nerr2\n", res.Stderr)
}

func TestStdinIsDevNull(t *testing.T) {
	ws := newWS(t)
	start := time.Now()
	res := runPlan(t, planOf(step(plan.Seq, command(t, ws.Root(), "cat"))), ws, Options{Timeout: 10 * time.Second})
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.False(t, res.TimedOut)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "", res.Stdout)
}

func TestRunsInCmdDir(t *testing.T) {
	ws := newWS(t)
	sub := join(ws.Root(), "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, ws.Chdir(sub))
	res := runPlan(t, planOf(step(plan.Seq, command(t, sub, "pwd"))), ws, Options{})
	assert.Equal(t, sub+"\n", res.Stdout)
}

func TestArgv0IsPassedAsGiven(t *testing.T) {
	ws := newWS(t)
	c := command(t, ws.Root(), "cat", "/proc/self/cmdline")
	c.Argv[0] = "not-cat"
	res := runPlan(t, planOf(step(plan.Seq, c)), ws, Options{})
	assert.Equal(t, "not-cat\x00/proc/self/cmdline\x00", res.Stdout)
}

func TestProgramNotFound(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	missing := plan.Cmd{Argv: []string{"nope"}, Program: join(dir, "nope"), Dir: dir}
	p := planOf(step(plan.Seq, missing))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, 127, res.ExitCode)
	assert.Contains(t, res.Stderr, "nope")

	p = planOf(step(plan.Seq, missing), step(plan.Or, command(t, dir, "echo", "went on")))
	res = runPlan(t, p, ws, Options{})
	assert.Equal(t, "went on\n", res.Stdout)
	assert.Equal(t, 0, res.ExitCode)
}

func TestProgramNotExecutable(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	path := join(dir, "script")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho hi\n"), 0o644))
	p := planOf(step(plan.Seq, plan.Cmd{Argv: []string{"./script"}, Program: path, Dir: dir}))
	res := runPlan(t, p, ws, Options{})
	// Even root cannot execute a file with no x bit: execve fails with EACCES.
	assert.Equal(t, 126, res.ExitCode)
	assert.Contains(t, res.Stderr, "permission denied")
	assert.Equal(t, "", res.Stdout)
}

func TestMissingCommandInPipelineStillRunsTheOthers(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	missing := plan.Cmd{Argv: []string{"nope"}, Program: join(dir, "nope"), Dir: dir}
	p := planOf(step(plan.Seq, missing, command(t, dir, "echo", "last")))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "last\n", res.Stdout)
	assert.Equal(t, 0, res.ExitCode)
	assert.Contains(t, res.Stderr, "nope")
}

func TestNilArguments(t *testing.T) {
	ws := newWS(t)
	_, err := Run(context.Background(), nil, ws, Options{})
	assert.Error(t, err)
	_, err = Run(context.Background(), planOf(), nil, Options{})
	assert.Error(t, err)
}

// recordingLauncher is a Launcher that records what it was asked to build.
type recordingLauncher struct {
	cmds []plan.Cmd
	envs [][]string
}

func (l *recordingLauncher) Command(c plan.Cmd, env []string) *exec.Cmd {
	l.cmds = append(l.cmds, c)
	l.envs = append(l.envs, env)
	return Direct{}.Command(c, env)
}

func (l *recordingLauncher) Start(c plan.Cmd, cmd *exec.Cmd, leader confine.Process) (confine.Process, error) {
	return Direct{}.Start(c, cmd, leader)
}

func TestLauncherIsUsed(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	l := &recordingLauncher{}
	p := planOf(step(plan.Seq, command(t, dir, "echo", "a"), command(t, dir, "cat")))
	res := runPlan(t, p, ws, Options{Launcher: l, Environ: []string{"HOME=/h"}})
	assert.Equal(t, "a\n", res.Stdout)
	require.Len(t, l.cmds, 2)
	// The last command of a pipeline starts first: it leads it.
	assert.Equal(t, []string{"cat"}, l.cmds[0].Argv)
	assert.Equal(t, []string{"echo", "a"}, l.cmds[1].Argv)
	assert.Equal(t, progenv.Env([]string{"HOME=/h"}), l.envs[1])
}

func TestDirectCommand(t *testing.T) {
	c := plan.Cmd{Argv: []string{"ls", "-l"}, Program: "/usr/bin/ls", Dir: "/ws"}
	cmd := Direct{}.Command(c, []string{"A=b"})
	assert.Equal(t, "/usr/bin/ls", cmd.Path)
	assert.Equal(t, []string{"ls", "-l"}, cmd.Args)
	assert.Equal(t, "/ws", cmd.Dir)
	assert.Equal(t, []string{"A=b"}, cmd.Env)
}

func TestEnvIsScrubbed(t *testing.T) {
	ws := newWS(t)
	environ := []string{
		"SECRET_TOKEN=x",
		"LD_PRELOAD=/tmp/evil.so",
		"PATH=/evil",
		"AWS_SECRET_ACCESS_KEY=k",
		"SSH_AUTH_SOCK=/tmp/agent",
		"BASH_ENV=/tmp/rc",
		"GIT_DIR=/elsewhere",
		"HOME=/home/agent",
		"LC_ALL=C.UTF-8",
		"TERM=xterm-256color",
	}
	res := runPlan(t, planOf(step(plan.Seq, command(t, ws.Root(), "env"))), ws, Options{Environ: environ})
	require.Equal(t, 0, res.ExitCode)
	lines := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	for _, bad := range []string{"SECRET_TOKEN", "LD_PRELOAD", "AWS_", "SSH_AUTH_SOCK", "BASH_ENV", "GIT_DIR", "/evil", "xterm"} {
		assert.NotContains(t, res.Stdout, bad)
	}
	assert.Contains(t, lines, "PATH="+plan.TrustedPath)
	assert.Contains(t, lines, "HOME=/home/agent")
	assert.Contains(t, lines, "LC_ALL=C.UTF-8")
	assert.Contains(t, lines, "TERM=dumb")
	assert.Equal(t, progenv.Env(environ), lines)
}

func TestTimeoutKillsGrandchildren(t *testing.T) {
	tests := []struct {
		name   string
		script string
	}{
		{"exits on SIGTERM", `echo $$ > pgid; sleep 300 & echo $! > pids; sleep 300 & echo $! >> pids; wait`},
		{"ignores SIGTERM", `trap "" TERM; echo $$ > pgid; sleep 300 & echo $! > pids; sleep 300 & echo $! >> pids; wait`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t)
			dir := ws.Root()
			p := planOf(
				step(plan.Seq, command(t, dir, "sh", "-c", tt.script)),
				step(plan.Seq, command(t, dir, "touch", "after")),
			)
			opts := Options{Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond}
			start := time.Now()
			res := runPlan(t, p, ws, opts)
			elapsed := time.Since(start)

			pgid := pids(t, readFile(t, join(dir, "pgid")))[0]
			children := pids(t, readFile(t, join(dir, "pids")))
			for _, pid := range children {
				killOnCleanup(t, pid)
			}
			assert.True(t, res.TimedOut)
			assert.Equal(t, 124, res.ExitCode)
			assert.Less(t, elapsed, 3*time.Second, "Run must return promptly")
			assert.NoFileExists(t, join(dir, "after"), "no step runs after a timeout")
			for _, pid := range children {
				assert.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 10*time.Millisecond, "grandchild %d survived", pid)
			}
			assert.Eventually(t, func() bool { return !groupAlive(pgid) }, 5*time.Second, 10*time.Millisecond, "group %d survived", pgid)
		})
	}
}

func TestContextCancellationTimesOut(t *testing.T) {
	ws := newWS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, planOf(step(plan.Seq, command(t, ws.Root(), "sleep", "300"))), ws, Options{})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.True(t, res.TimedOut)
	assert.Equal(t, 124, res.ExitCode)
}

func TestCancelledContextRunsNothing(t *testing.T) {
	ws := newWS(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, planOf(step(plan.Seq, command(t, ws.Root(), "touch", "x"))), ws, Options{})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, 124, res.ExitCode)
	assert.NoFileExists(t, join(ws.Root(), "x"))
}

func TestFinishedPipelineLeavesNoBackgroundChild(t *testing.T) {
	ws := newWS(t)
	p := planOf(step(plan.Seq, command(t, ws.Root(), "sh", "-c", "sleep 300 & echo $!")))
	start := time.Now()
	res := runPlan(t, p, ws, Options{Timeout: 10 * time.Second})
	assert.Less(t, time.Since(start), 3*time.Second, "Run must not wait for the background child")
	pid := pids(t, res.Stdout)[0]
	killOnCleanup(t, pid)
	assert.False(t, res.TimedOut)
	assert.Equal(t, 0, res.ExitCode)
	assert.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 10*time.Millisecond, "background child %d survived", pid)
}

func TestEscapedGrandchildHoldingPipeDoesNotHang(t *testing.T) {
	setsid, err := exec.LookPath("setsid")
	require.NoError(t, err, "setsid (util-linux) is in Debian's base")
	ws := newWS(t)
	dir := ws.Root()
	// The loop waits until the child has its own session, so the group kill
	// at the end of the pipeline cannot reach it.
	script := setsid + ` sleep 300 & echo $! > pid
while [ "$(cut -d' ' -f6 /proc/$!/stat)" != "$!" ]; do :; done
echo started`
	start := time.Now()
	res := runPlan(t, planOf(step(plan.Seq, command(t, dir, "sh", "-c", script))), ws, Options{Timeout: 10 * time.Second})
	elapsed := time.Since(start)
	pid := pids(t, readFile(t, join(dir, "pid")))[0]
	killOnCleanup(t, pid)
	assert.Equal(t, "started\n", res.Stdout)
	assert.Equal(t, 0, res.ExitCode)
	assert.True(t, alive(pid), "the test needs a grandchild that escaped the group")
	assert.GreaterOrEqual(t, elapsed, drainTime, "output is drained until the deadline")
	assert.Less(t, elapsed, 2*time.Second, "the drain must be bounded")
}

func TestLargeOutputIsTruncated(t *testing.T) {
	ws := newWS(t)
	const n = 50_000_000
	p := planOf(step(plan.Seq, command(t, ws.Root(), "head", "-c", "50000000", "/dev/zero")))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, 0, res.ExitCode)
	assert.True(t, res.Truncated)
	assert.Equal(t, int64(n), res.StdoutBytes)
	assert.LessOrEqual(t, len(res.Stdout), defaultMaxOutput+100)
	assert.Contains(t, res.Stdout, "[vtexec: 49934464 bytes omitted]")
}

func TestMaxOutputOption(t *testing.T) {
	ws := newWS(t)
	p := planOf(step(plan.Seq, command(t, ws.Root(), "printf", "0123456789")))
	res := runPlan(t, p, ws, Options{MaxOutput: 4})
	assert.True(t, res.Truncated)
	assert.Equal(t, "01\n[vtexec: 6 bytes omitted]\n89", res.Stdout)
	assert.Equal(t, int64(10), res.StdoutBytes)
}

func TestDurationIsWallTime(t *testing.T) {
	ws := newWS(t)
	res := runPlan(t, planOf(step(plan.Seq, command(t, ws.Root(), "sleep", "0.2"))), ws, Options{})
	assert.GreaterOrEqual(t, res.Duration, 200*time.Millisecond)
	assert.Less(t, res.Duration, 5*time.Second)
}

func TestExitStatus(t *testing.T) {
	assert.Equal(t, 0, exitStatus(nil))
	err := exec.Command("sh", "-c", "exit 7").Run()
	assert.Equal(t, 7, exitStatus(err))
	err = exec.Command("sh", "-c", "kill -TERM $$").Run()
	assert.Equal(t, 128+int(syscall.SIGTERM), exitStatus(err))
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	assert.Equal(t, 30*time.Second, o.Timeout)
	assert.Equal(t, 500*time.Millisecond, o.Grace)
	assert.Equal(t, 64<<10, o.MaxOutput)
	assert.Equal(t, os.Environ(), o.Environ)
	assert.Equal(t, Direct{}, o.Launcher)

	o = Options{Environ: []string{}}.withDefaults()
	assert.Empty(t, o.Environ, "an empty, non-nil Environ stays empty")
}

func TestRecheckStopsBeforeAStep(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	var seen []int
	stop := errors.New("refused: the path now leads outside")
	opts := Options{Recheck: func(i int, cmds []plan.Cmd) error {
		seen = append(seen, i)
		if i == 2 {
			return stop
		}
		return nil
	}}
	p := planOf(
		step(plan.Seq, command(t, dir, "touch", "first")),
		step(plan.Or, command(t, dir, "touch", "skipped")), // not run: status 0
		step(plan.Seq, command(t, dir, "touch", "third")),
		step(plan.Seq, command(t, dir, "touch", "fourth")),
	)
	res := runPlan(t, p, ws, opts)
	require.Equal(t, []int{0, 2}, seen, "Recheck runs only before steps that run")
	require.ErrorIs(t, res.Stopped, stop)
	require.Equal(t, 126, res.ExitCode)
	require.Contains(t, res.Stderr, "vtexec: refused: the path now leads outside")
	require.FileExists(t, filepath.Join(dir, "first"))
	for _, name := range []string{"skipped", "third", "fourth"} {
		require.NoFileExists(t, filepath.Join(dir, name))
	}

	res = runPlan(t, planOf(step(plan.Seq, command(t, dir, "true"))), ws, Options{Recheck: func(int, []plan.Cmd) error { return nil }})
	require.NoError(t, res.Stopped)
	require.Equal(t, 0, res.ExitCode)
}

// A process that escaped the group and keeps writing cannot hold the run
// past maxDrainTime.
func TestEscapeeStillWritingDoesNotHang(t *testing.T) {
	setsid, err := exec.LookPath("setsid")
	require.NoError(t, err, "setsid (util-linux) is in Debian's base")
	ws := newWS(t)
	dir := ws.Root()
	script := setsid + ` sh -c 'while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done' &
echo $! > pid
while [ "$(cut -d' ' -f6 /proc/$!/stat)" != "$!" ]; do :; done`
	start := time.Now()
	res := runPlan(t, planOf(step(plan.Seq, command(t, dir, "sh", "-c", script))), ws, Options{Timeout: 20 * time.Second})
	elapsed := time.Since(start)
	pid := pids(t, readFile(t, join(dir, "pid")))[0]
	killOnCleanup(t, pid)
	assert.Less(t, elapsed, maxDrainTime+3*time.Second, "the drain must be bounded")
	assert.Equal(t, 0, res.ExitCode)
}

// pendingBytes sees what a pipe holds, unread, without taking the file
// out of the poller (a read with a deadline still works after).
func TestPendingBytes(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.Zero(t, pendingBytes([]*os.File{r}))
	_, err = w.Write(make([]byte, 1000))
	require.NoError(t, err)
	assert.Equal(t, 1000, pendingBytes([]*os.File{r}))
	require.NoError(t, r.SetReadDeadline(time.Now().Add(time.Second)))
	n, err := r.Read(make([]byte, 4000))
	require.NoError(t, err)
	assert.Equal(t, 1000, n)
	assert.Zero(t, pendingBytes([]*os.File{r}))
}

// The drain waits for what is still in a pipe however long the reader
// takes to come to it (a starved vtexec), rather than closing the pipe
// after drainTime and dropping the bytes without a word.
func TestDrainWaitsForBytesStillInThePipe(t *testing.T) {
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	errR, errW, err := os.Pipe()
	require.NoError(t, err)
	payload := strings.Repeat("x", 30000)
	_, err = outW.WriteString(payload)
	require.NoError(t, err)
	outW.Close()
	errW.Close()
	pl := &pipeline{r: &run{stdout: NewCapture(1 << 20), stderr: NewCapture(1 << 20)}, readEnds: []*os.File{outR, errR}}
	// The readers come late, as when the process has no CPU to give them.
	done := make(chan struct{})
	go func() {
		time.Sleep(3 * drainTime)
		var wg sync.WaitGroup
		wg.Go(func() { copyInto(pl.r.stdout, outR) })
		wg.Go(func() { copyInto(pl.r.stderr, errR) })
		wg.Wait()
		close(done)
	}()
	pl.drain(done)
	assert.Equal(t, payload, pl.r.stdout.String(), "bytes in the pipe were dropped")
	assert.Zero(t, pl.r.lost)
}
