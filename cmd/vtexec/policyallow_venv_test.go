//go:build hostprograms

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// policy allow never writes a rule the loader rejects: a virtual
// environment's interpreter is recorded as the interpreter the check
// finds, and a program it cannot name is refused with nothing written.
func TestPolicyAllowWritesOnlyRulesThatLoad(t *testing.T) {
	ws := cliWorkspace(t)
	venv := filepath.Join(ws, ".venv")
	require.NoError(t, os.MkdirAll(filepath.Join(venv, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644))
	python, err := filepath.EvalSymlinks("/usr/bin/python3")
	require.NoError(t, err)
	require.NoError(t, os.Symlink(python, filepath.Join(venv, "bin", "python")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "tool.sh"), []byte("#!/bin/sh\n"), 0o755))
	allow := func(args ...string) (int, string) {
		code, out, errOut := cli(t, "", append([]string{"policy", "allow", "--workspace", ws, "--"}, args...)...)
		return code, out + errOut
	}
	check := func(cmd string) int {
		code, _, _ := cli(t, "", "check", "--workspace", ws, "--", cmd)
		return code
	}
	code, out := allow(".venv/bin/python", "-m", "pytest", "-q")
	require.Equal(t, 0, code, out)
	assert.Equal(t, exitAllow, check(".venv/bin/python -m pytest tests/test_a.py"), "the same kind of use")
	assert.Equal(t, exitAsk, check(".venv/bin/python -m pip install x"))
	assert.Equal(t, exitAllow, check("ls"), "the policy still loads")

	code, out = allow("./tool.sh")
	assert.NotEqual(t, 0, code, out)
	code, out = allow("sub/../tool.sh", "x")
	assert.NotEqual(t, 0, code, out)
	assert.Equal(t, exitAllow, check("ls"), "nothing was written that breaks the workspace")
	data, err := os.ReadFile(filepath.Join(ws, ".vtexec", "policy.local.toml"))
	require.NoError(t, err)
	assert.NotContains(t, string(data), "tool.sh")
}
