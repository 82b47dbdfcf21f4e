//go:build !windows

package runner

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
)

// outErr is a command that writes "out" to stdout and "err" to stderr.
func outErr(t *testing.T, dir string) plan.Cmd {
	return command(t, dir, "sh", "-c", "echo out; echo err >&2")
}

func TestRedirectWriteAndAppend(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	f := join(dir, "f")
	p := planOf(
		step(plan.Seq, withRedirects(command(t, dir, "echo", "a"), plan.Redirect{Fd: 1, Kind: plan.Write, Path: f})),
		step(plan.Seq, withRedirects(command(t, dir, "echo", "b"), plan.Redirect{Fd: 1, Kind: plan.Append, Path: f})),
	)
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "", res.Stdout)
	assert.Equal(t, "a\nb\n", readFile(t, f))

	p = planOf(step(plan.Seq, withRedirects(command(t, dir, "echo", "c"), plan.Redirect{Fd: 1, Kind: plan.Write, Path: f})))
	runPlan(t, p, ws, Options{})
	assert.Equal(t, "c\n", readFile(t, f), "> truncates")
	info, err := os.Stat(f)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm()&^umask())
}

// umask returns the process umask's bits that could clear 0644.
func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m) & 0o644
}

func TestRedirectRead(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	f := join(dir, "in")
	require.NoError(t, os.WriteFile(f, []byte("from file\n"), 0o644))
	p := planOf(step(plan.Seq, withRedirects(command(t, dir, "cat"), plan.Redirect{Fd: 0, Kind: plan.Read, Path: f})))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "from file\n", res.Stdout)
}

func TestRedirectDupOrdering(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	f := join(dir, "f")
	toFile := plan.Redirect{Fd: 1, Kind: plan.Write, Path: f}
	errToOut := plan.Redirect{Fd: 2, Kind: plan.Dup, DupFd: 1}

	// >f 2>&1: both streams go to f.
	res := runPlan(t, planOf(step(plan.Seq, withRedirects(outErr(t, dir), toFile, errToOut))), ws, Options{})
	assert.Equal(t, "out\nerr\n", readFile(t, f))
	assert.Equal(t, "", res.Stdout)
	assert.Equal(t, "", res.Stderr)

	// 2>&1 >f: stderr goes to the old stdout, stdout to f.
	res = runPlan(t, planOf(step(plan.Seq, withRedirects(outErr(t, dir), errToOut, toFile))), ws, Options{})
	assert.Equal(t, "out\n", readFile(t, f))
	assert.Equal(t, "err\n", res.Stdout)
	assert.Equal(t, "", res.Stderr)
}

func TestRedirectDupIntoPipe(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	first := withRedirects(outErr(t, dir), plan.Redirect{Fd: 2, Kind: plan.Dup, DupFd: 1})
	res := runPlan(t, planOf(step(plan.Seq, first, command(t, dir, "sort"))), ws, Options{})
	assert.Equal(t, "err\nout\n", res.Stdout, "2>&1 | sort sends stderr through the pipe")
	assert.Equal(t, "", res.Stderr)
}

func TestRedirectStdoutToStderr(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	c := withRedirects(command(t, dir, "echo", "x"), plan.Redirect{Fd: 1, Kind: plan.Dup, DupFd: 2})
	res := runPlan(t, planOf(step(plan.Seq, c)), ws, Options{})
	assert.Equal(t, "", res.Stdout)
	assert.Equal(t, "x\n", res.Stderr)
}

func TestRedirectRefusesSymlink(t *testing.T) {
	outside := t.TempDir()
	target := join(outside, "target")
	require.NoError(t, os.WriteFile(target, []byte("precious\n"), 0o644))
	ws := newWS(t)
	dir := ws.Root()
	link := join(dir, "link")
	require.NoError(t, os.Symlink(target, link))

	for _, kind := range []plan.RedirectKind{plan.Write, plan.Append, plan.Read} {
		fd := 1
		if kind == plan.Read {
			fd = 0
		}
		c := withRedirects(command(t, dir, "echo", "clobbered"), plan.Redirect{Fd: fd, Kind: kind, Path: link})
		res := runPlan(t, planOf(step(plan.Seq, c)), ws, Options{})
		assert.Equal(t, 1, res.ExitCode, "kind %d", kind)
		assert.Equal(t, "", res.Stdout, "the command must not run")
		assert.Contains(t, res.Stderr, "symbolic link")
		assert.Equal(t, "precious\n", readFile(t, target))
	}

	dangling := join(dir, "dangling")
	require.NoError(t, os.Symlink(join(outside, "new"), dangling))
	c := withRedirects(command(t, dir, "echo", "x"), plan.Redirect{Fd: 1, Kind: plan.Write, Path: dangling})
	res := runPlan(t, planOf(step(plan.Seq, c)), ws, Options{})
	assert.Equal(t, 1, res.ExitCode)
	assert.NoFileExists(t, join(outside, "new"), "a dangling symlink must not create its target")
}

// A group's redirect is opened as a command's is: a link put where the
// checked file was (or above it) leads nowhere.
func TestGroupRedirectRefusesSymlink(t *testing.T) {
	outside := t.TempDir()
	target := join(outside, "target")
	require.NoError(t, os.WriteFile(target, []byte("precious\n"), 0o644))
	ws := newWS(t)
	dir := ws.Root()
	require.NoError(t, os.Symlink(target, join(dir, "link")))
	require.NoError(t, os.Symlink(outside, join(dir, "linkdir")))
	for _, path := range []string{join(dir, "link"), join(dir, "linkdir", "target"), join(dir, "linkdir", "new")} {
		for _, kind := range []plan.RedirectKind{plan.Write, plan.Append} {
			p := &plan.Plan{Groups: []plan.Group{{Redirects: []plan.Redirect{{Fd: 1, Kind: kind, Path: path}}}}}
			st := step(plan.Seq, command(t, dir, "echo", "clobbered"))
			st.Group = 1
			p.Steps = []plan.Step{st}
			res := runPlan(t, p, ws, Options{})
			assert.Equal(t, 1, res.ExitCode, "%s kind %d", path, kind)
			assert.Empty(t, res.Stdout, "the group must not run")
			assert.Equal(t, "precious\n", readFile(t, target))
			assert.NoFileExists(t, join(outside, "new"))
		}
	}
}

func TestRedirectFailureSkipsCommandAndGoesOn(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	bad := withRedirects(command(t, dir, "touch", "ran"), plan.Redirect{Fd: 0, Kind: plan.Read, Path: join(dir, "missing")})
	p := planOf(step(plan.Seq, bad), step(plan.Or, command(t, dir, "echo", "next")))
	res := runPlan(t, p, ws, Options{})
	assert.NoFileExists(t, join(dir, "ran"))
	assert.Equal(t, "next\n", res.Stdout)
	assert.Contains(t, res.Stderr, "missing")
	assert.Equal(t, 1, countLines(res.Stderr))
	assert.Equal(t, 0, res.ExitCode)

	res = runPlan(t, planOf(step(plan.Seq, bad)), ws, Options{})
	assert.Equal(t, 1, res.ExitCode)
}

func TestRedirectOfHighFdIsRefused(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	c := withRedirects(command(t, dir, "touch", "ran"), plan.Redirect{Fd: 3, Kind: plan.Write, Path: join(dir, "f")})
	res := runPlan(t, planOf(step(plan.Seq, c)), ws, Options{})
	assert.Equal(t, 1, res.ExitCode)
	assert.NoFileExists(t, join(dir, "ran"))
	assert.NoFileExists(t, join(dir, "f"))
}

func TestRedirectToFifoWithoutReaderDoesNotHang(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	fifo := join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	c := withRedirects(command(t, dir, "echo", "x"), plan.Redirect{Fd: 1, Kind: plan.Write, Path: fifo})
	start := time.Now()
	res := runPlan(t, planOf(step(plan.Seq, c)), ws, Options{Timeout: 5 * time.Second})
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, 1, res.ExitCode)
	assert.False(t, res.TimedOut)

	// Reading a FIFO without a writer does not block the runner in open:
	// the command sees end of file at once.
	c = withRedirects(command(t, dir, "cat"), plan.Redirect{Fd: 0, Kind: plan.Read, Path: fifo})
	start = time.Now()
	res = runPlan(t, planOf(step(plan.Seq, c)), ws, Options{Timeout: 5 * time.Second})
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.False(t, res.TimedOut)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "", res.Stdout)
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

// A group's redirects are opened once, as it is entered, and closed as
// it ends: a run of many such groups leaves no descriptor open, and a
// group whose file cannot be opened runs none of its commands.
func TestGroupRedirectsAreOpenedOnceAndClosed(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	out := join(dir, "g.txt")
	var p *plan.Plan
	group := func(op plan.Op, redirs ...plan.Redirect) {
		p.Groups = append(p.Groups, plan.Group{Redirects: redirs})
		a, b := step(op, command(t, dir, "echo", "a")), step(plan.Seq, command(t, dir, "echo", "b"))
		a.Group, b.Group = len(p.Groups), len(p.Groups)
		p.Steps = append(p.Steps, a, b)
	}
	p = &plan.Plan{}
	for range 50 {
		group(plan.Seq, plan.Redirect{Fd: 1, Kind: plan.Append, Path: out}, plan.Redirect{Fd: 2, Kind: plan.Dup, DupFd: 1})
	}
	before := openFds(t)
	res, err := Run(context.Background(), p, ws, Options{})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode, res.Stderr)
	assert.Empty(t, res.Stdout)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("a\nb\n", 50), string(got))
	assert.Equal(t, before, openFds(t), "descriptors left open")

	// > truncates once, when the group is entered.
	p = &plan.Plan{}
	group(plan.Seq, plan.Redirect{Fd: 1, Kind: plan.Write, Path: out})
	res, err = Run(context.Background(), p, ws, Options{})
	require.NoError(t, err)
	got, _ = os.ReadFile(out)
	assert.Equal(t, "a\nb\n", string(got))

	p = &plan.Plan{}
	group(plan.Seq, plan.Redirect{Fd: 1, Kind: plan.Write, Path: join(dir, "missing", "x")})
	p.Steps = append(p.Steps, step(plan.Or, command(t, dir, "echo", "after")))
	res, err = Run(context.Background(), p, ws, Options{})
	require.NoError(t, err)
	assert.Equal(t, "after\n", res.Stdout, "the group did not run, and failed")
	assert.Contains(t, res.Stderr, "missing/x")
}

func openFds(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(entries)
}
