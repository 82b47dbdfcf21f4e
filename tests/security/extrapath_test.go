package security

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// The user's toolchains (pyenv, nvm, ~/.cargo/bin) join the trusted PATH
// from the user's policy: found, checked and run as the system's are,
// read-only in the box. A project's file cannot add one, and none may lie
// where commands write.
func TestExtraPathIsTheUsersOnly(t *testing.T) {
	ws := fixture(t)
	tools := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tools, "mytool"), []byte("#!/bin/sh\necho mytool ran\ntouch \"$0.written\" 2>/dev/null && echo wrote-toolchain\n"), 0o755))
	userPolicy := func(text string) {
		dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "policy.toml"), []byte(text), 0o644))
	}
	e := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { e.Close() })
	decide := func(cmd string) (vtexec.Decision, error) {
		return e.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
	}

	d, err := decide("mytool")
	require.NoError(t, err)
	assert.Equal(t, "deny", string(d.Decision), "not on the trusted PATH: %s", d.Reason)

	require.NoError(t, os.WriteFile(filepath.Join(ws, ".vtexec", "policy.toml"), []byte("[paths]\nextra = [\""+tools+"\"]\n"), 0o644))
	d, err = decide("mytool")
	require.NoError(t, err)
	assert.Equal(t, "deny", string(d.Decision), "a project's file adds nothing to the trusted PATH")
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".vtexec", "policy.toml"), nil, 0o644))

	userPolicy("[paths]\nextra = [\"" + tools + "\", \"/nonexistent/bin\"]\n")
	d, err = decide("mytool")
	require.NoError(t, err)
	assert.Equal(t, "ask", string(d.Decision), "found, and asked about as any tool vtexec has no validator for: %s", d.Reason)
	res, err := e.Run(context.Background(), vtexec.Request{Command: "mytool", Workspace: ws, AuditLog: "off", Approver: answerWith(vtexec.AnswerOnce)})
	require.NoError(t, err)
	assert.Contains(t, res.Stdout, "mytool ran")
	assert.NotContains(t, res.Stdout, "wrote-toolchain", "read-only in the box")
	assert.NoFileExists(t, filepath.Join(tools, "mytool.written"))

	userPolicy("[paths]\nextra = [\"" + filepath.Join(ws, "src") + "\"]\n")
	_, err = decide("ls")
	var re *vtexec.RequestError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, "bad_policy", re.Code, "a directory commands write would make their programs trusted")

	userPolicy("[paths]\nextra = [\"relative/bin\"]\n")
	_, err = decide("ls")
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, "bad_policy", re.Code)
}
