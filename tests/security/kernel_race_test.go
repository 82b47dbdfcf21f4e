package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/runner"
	"github.com/vtexec/vtexec/workspace"
)

// raceSetup is a workspace with file.txt and sub/, and a canary and a
// directory outside it.
func raceSetup(t *testing.T) (ws *workspace.Workspace, outside string) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "file.txt"), []byte("inside\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "canary"), []byte("CANARY-9\n"), 0o644))
	ws, err = workspace.New(root)
	require.NoError(t, err)
	return ws, outside
}

func launcher(t *testing.T, ws *workspace.Workspace, mode confine.Mode) runner.Launcher {
	b, err := confine.Open(confine.Spec{ReadWrite: []string{ws.Root()}}, mode)
	require.NoError(t, err)
	t.Cleanup(func() { b.CloseLast() })
	return runner.Boxed{Box: b}
}

// TestKernelReadAfterSwap: cat file.txt was checked while file.txt was a
// file inside; it is swapped for a link to a file outside before cat
// opens it (the window between check and exec).
func TestKernelReadAfterSwap(t *testing.T) {
	for _, tc := range []struct {
		mode  confine.Mode
		leaks bool
	}{{confine.ModeRequired, false}, {confine.ModeOff, true}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			ws, outside := raceSetup(t)
			p := &plan.Plan{Steps: []plan.Step{{Pipeline: plan.Pipeline{Cmds: []plan.Cmd{
				{Argv: []string{"cat", "file.txt"}, Program: "/usr/bin/cat", Dir: ws.Root()}}}}}}
			target := filepath.Join(ws.Root(), "file.txt")
			require.NoError(t, os.Remove(target))
			require.NoError(t, os.Symlink(filepath.Join(outside, "canary"), target))
			res, err := runner.Run(context.Background(), p, ws, runner.Options{Launcher: launcher(t, ws, tc.mode)})
			require.NoError(t, err)
			if tc.leaks {
				assert.Equal(t, "CANARY-9\n", res.Stdout, "without confinement the swap works (the probe works)")
			} else {
				assert.NotContains(t, res.Stdout, "CANARY")
				assert.NotEqual(t, 0, res.ExitCode)
			}
		})
	}
}

// TestRedirectAfterParentSwap: echo x > sub/out.txt was checked while sub
// was a directory inside; sub is swapped for a link to a directory
// outside before vtexec opens the redirect. vtexec opens it itself, outside
// the box, so the open must pin the directory and check where it is.
func TestRedirectAfterParentSwap(t *testing.T) {
	ws, outside := raceSetup(t)
	out := filepath.Join(ws.Root(), "sub", "out.txt")
	p := &plan.Plan{Steps: []plan.Step{{Pipeline: plan.Pipeline{Cmds: []plan.Cmd{
		{Argv: []string{"echo", "x"}, Program: "/usr/bin/echo", Dir: ws.Root(),
			Redirects: []plan.Redirect{{Fd: 1, Kind: plan.Write, Path: out}}}}}}}}
	sub := filepath.Join(ws.Root(), "sub")
	require.NoError(t, os.Remove(sub))
	require.NoError(t, os.Symlink(outside, sub))

	res, err := runner.Run(context.Background(), p, ws, runner.Options{Launcher: runner.Direct{}})
	require.NoError(t, err)
	assert.NotEqual(t, 0, res.ExitCode)
	assert.Contains(t, res.Stderr, "outside the workspace")
	assert.NoFileExists(t, filepath.Join(outside, "out.txt"))

	// The same open by path alone lands outside: the probe works.
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	require.NoError(t, err)
	f.Close()
	assert.FileExists(t, filepath.Join(outside, "out.txt"))
}

// TestRedirectIntoProtectedAfterSwap: the parent is swapped for a link to
// the git hooks directory, inside the workspace but protected.
func TestRedirectIntoProtectedAfterSwap(t *testing.T) {
	ws, _ := raceSetup(t)
	hooks := filepath.Join(ws.Root(), ".git", "hooks")
	require.NoError(t, os.MkdirAll(hooks, 0o755))
	p := &plan.Plan{Steps: []plan.Step{{Pipeline: plan.Pipeline{Cmds: []plan.Cmd{
		{Argv: []string{"echo", "x"}, Program: "/usr/bin/echo", Dir: ws.Root(),
			Redirects: []plan.Redirect{{Fd: 1, Kind: plan.Write, Path: filepath.Join(ws.Root(), "sub", "pre-commit")}}}}}}}}
	sub := filepath.Join(ws.Root(), "sub")
	require.NoError(t, os.Remove(sub))
	require.NoError(t, os.Symlink(hooks, sub))
	res, err := runner.Run(context.Background(), p, ws, runner.Options{Launcher: runner.Direct{}})
	require.NoError(t, err)
	assert.NotEqual(t, 0, res.ExitCode)
	assert.Contains(t, res.Stderr, "write-protected")
	assert.NoFileExists(t, filepath.Join(hooks, "pre-commit"))
}
