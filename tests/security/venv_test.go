//go:build hostprograms

package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// A virtual environment's interpreter runs as the trusted interpreter it
// links to, under its own name, so the environment is active; anything
// that only looks like one is what it is: a path into the workspace.
func TestVenvInterpreterIsTheTrustedOne(t *testing.T) {
	python, err := filepath.EvalSymlinks("/usr/bin/python3")
	require.NoError(t, err)
	ws := fixture(t)
	venv := func(dir, link string, cfg bool) {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, dir, "bin"), 0o755))
		if cfg {
			require.NoError(t, os.WriteFile(filepath.Join(ws, dir, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644))
		}
		require.NoError(t, os.Symlink(link, filepath.Join(ws, dir, "bin", "python")))
	}
	venv(".venv", python, true)
	venv("nocfg", python, false)
	venv("notpython", "/bin/sh", true)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "evil.py"), []byte("#!/bin/sh\necho evil\n"), 0o755))
	venv("inside", filepath.Join(ws, "evil.py"), true)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "linkedbin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "linkedbin", "pyvenv.cfg"), nil, 0o644))
	require.NoError(t, os.Symlink("/usr/bin", filepath.Join(ws, "linkedbin", "bin")))

	cases := []struct {
		cmd, decision, code string
	}{
		{".venv/bin/python -m pytest -q", "ask", "not_allowed"}, // python asks as python does
		{"./.venv/bin/python -c 'print(1)'", "ask", "inline_code"},
		{"nocfg/bin/python -V", "deny", "not_allowed"},
		{"notpython/bin/python -V", "deny", "not_allowed"},
		{"inside/bin/python -V", "ask", "workspace_program"},
		{"linkedbin/bin/python3 -V", "deny", "not_allowed"},
	}
	for _, tc := range cases {
		d := decide(t, ws, tc.cmd)
		assert.Equal(t, tc.decision, string(d.Decision), "%s: %s", tc.cmd, d.Reason)
		assert.Equal(t, tc.code, d.Code, "%s: %s", tc.cmd, d.Reason)
	}
	d := decide(t, ws, ".venv/bin/python -V")
	require.Len(t, d.Commands, 1)
	assert.Equal(t, python, d.Commands[0].Program, "the trusted interpreter runs, never the link")
	assert.Equal(t, ".venv/bin/python", d.Commands[0].Argv[0], "under the link's name, which activates the environment")

	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: ".venv/bin/python -c 'import sys; print(sys.prefix)'", Workspace: ws, AuditLog: "off", Approver: answerWith(vtexec.AnswerOnce)})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(ws, ".venv")+"\n", res.Stdout, res.Stderr)
}

// A virtual environment made from an interpreter that is not on the
// trusted PATH (pyenv's, a user's own build) is refused with a hint that
// works: the line that adds the interpreter's directory to the user's
// policy, after which it runs.
func TestVenvOfAnUntrustedInterpreterSaysHowToTrustIt(t *testing.T) {
	python, err := filepath.EvalSymlinks("/usr/bin/python3")
	require.NoError(t, err)
	ws := fixture(t)
	tools := t.TempDir()
	data, err := os.ReadFile(python)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tools, "python3"), data, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".venv", "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".venv", "pyvenv.cfg"), []byte("home = "+tools+"\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(tools, "python3"), filepath.Join(ws, ".venv", "bin", "python3")))

	e := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { e.Close() })
	defer e.Close()
	d, err := e.Check(context.Background(), vtexec.Request{Command: ".venv/bin/python3 -V", Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	assert.Equal(t, "deny", string(d.Decision))
	assert.Contains(t, d.Reason, "not on the trusted PATH")
	assert.Contains(t, d.Hint, `extra = ["`+tools+`"]`)

	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "policy.toml"), []byte("[paths]\nextra = [\""+tools+"\"]\n"), 0o644))
	t.Cleanup(func() { os.Remove(filepath.Join(dir, "policy.toml")) })
	d, err = e.Check(context.Background(), vtexec.Request{Command: ".venv/bin/python3 -V", Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	assert.Equal(t, "allow", string(d.Decision), "%s: %s", d.Reason, d.Hint)
	res, err := e.Run(context.Background(), vtexec.Request{Command: ".venv/bin/python3 -c 'import sys; print(sys.prefix)'", Workspace: ws, AuditLog: "off", Approver: answerWith(vtexec.AnswerOnce)})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(ws, ".venv")+"\n", res.Stdout, res.Stderr)
}
