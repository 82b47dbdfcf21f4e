//go:build !windows

package runner

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
)

// cdCmd is the builtin cd DIR as checked in dir.
func cdCmd(dir, target string) plan.Cmd {
	return plan.Cmd{Argv: []string{"cd", target}, Builtin: "cd", Dir: dir}
}

func TestCdMovesCwd(t *testing.T) {
	ws := newWS(t)
	root := ws.Root()
	sub := join(root, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))

	res := runPlan(t, planOf(step(plan.Seq, cdCmd(root, "a/b"))), ws, Options{})
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, sub, res.Cwd)
	assert.Equal(t, sub, ws.Cwd())

	res = runPlan(t, planOf(step(plan.Seq, cdCmd(sub, ".."))), ws, Options{})
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, join(root, "a"), res.Cwd)
}

// A step checked in a directory a cd before it would have moved to,
// when that cd did not run, stops the run instead of running elsewhere
// (false && cd sub; pwd).
func TestStepCheckedInADirectoryNotReachedStops(t *testing.T) {
	ws := newWS(t)
	root := ws.Root()
	sub := join(root, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	p := planOf(step(plan.Seq, command(t, root, "false")), step(plan.And, cdCmd(root, "sub")),
		step(plan.Seq, command(t, sub, "pwd")))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "", res.Stdout)
	var nr *DirNotReached
	require.ErrorAs(t, res.Stopped, &nr)
	assert.Equal(t, sub, nr.Checked)
	assert.Equal(t, root, nr.Actual)
	assert.Equal(t, root, res.Cwd)
}

func TestCdThenCommand(t *testing.T) {
	ws := newWS(t)
	root := ws.Root()
	sub := join(root, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	p := planOf(step(plan.Seq, cdCmd(root, "sub")), step(plan.And, command(t, sub, "pwd")))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, sub+"\n", res.Stdout)
	assert.Equal(t, sub, res.Cwd)
}

func TestCdOutsideFails(t *testing.T) {
	ws := newWS(t)
	root := ws.Root()
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, join(root, "escape")))
	for _, target := range []string{"..", outside, "escape", "missing"} {
		p := planOf(step(plan.Seq, cdCmd(root, target)), step(plan.And, command(t, root, "echo", "ran")))
		res := runPlan(t, p, ws, Options{})
		assert.Equal(t, 1, res.ExitCode, target)
		assert.Equal(t, root, res.Cwd, target)
		assert.Contains(t, res.Stderr, "cd: ", target)
		assert.Equal(t, "", res.Stdout, "&& must not run after a failed cd")
	}
}

func TestCdBadUsage(t *testing.T) {
	ws := newWS(t)
	root := ws.Root()
	for _, argv := range [][]string{{"cd"}, {"cd", "a", "b"}, {"cd", "-"}} {
		c := plan.Cmd{Argv: argv, Builtin: "cd", Dir: root}
		res := runPlan(t, planOf(step(plan.Seq, c)), ws, Options{})
		assert.Equal(t, 1, res.ExitCode, argv)
		assert.Equal(t, root, res.Cwd)
	}
}

func TestCdErrorHonoursRedirect(t *testing.T) {
	ws := newWS(t)
	root := ws.Root()
	c := withRedirects(cdCmd(root, "missing"), plan.Redirect{Fd: 2, Kind: plan.Write, Path: join(root, "err")})
	p := planOf(step(plan.Seq, c), step(plan.Or, command(t, root, "echo", "no")))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, "no\n", res.Stdout)
	assert.Equal(t, "", res.Stderr)
	assert.Contains(t, readFile(t, join(root, "err")), "cd: ")
}

func TestCdInPipelineDoesNotMove(t *testing.T) {
	ws := newWS(t)
	root := ws.Root()
	require.NoError(t, os.Mkdir(join(root, "sub"), 0o755))
	p := planOf(step(plan.Seq, cdCmd(root, "sub"), command(t, root, "cat")))
	res := runPlan(t, p, ws, Options{})
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, root, res.Cwd)
}
