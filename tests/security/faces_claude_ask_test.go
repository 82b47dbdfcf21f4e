//go:build !windows

package security

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/hook"
)

// A person's yes to Claude Code's question runs the command inside
// vtexec, once: the hook asks about the command rewritten to a vtexec run
// carrying the approval id vtexec gave for exactly that command, cwd and
// session. Run again, or edited, the line is refused.
func TestClaudeAskRunsInsideVtexecOnce(t *testing.T) {
	ws := fixture(t)
	exe := builtVtexec(t)
	const command = "tar -cf out.tar README.md"
	opt := hook.Options{Engine: closedAfter(t, vtexec.NewEngine(vtexec.Config{})), Exe: exe, Getenv: func(string) string { return "" }, Workspace: ws}
	v := hook.Decide(context.Background(), hookEvent(hook.Claude, ws, "Bash", map[string]any{"command": command}), opt)
	require.Equal(t, hook.Ask, v.Kind, "%s: %s", v.Code, v.Reason)
	require.NotNil(t, v.Input, "the ask carries the command rewritten to run through vtexec")
	var line string
	require.NoError(t, json.Unmarshal(v.Input["command"], &line))
	assert.Contains(t, line, "'--approval-id'")
	assert.True(t, strings.HasSuffix(line, "'"+command+"'"), line)
	rendered := string(hook.Render(hook.Claude, v))
	assert.Contains(t, rendered, `"permissionDecision":"ask"`)
	assert.Contains(t, rendered, `"updatedInput"`)

	bash := func(line string) (int, string) {
		cmd := exec.Command("/bin/bash", "-c", line)
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		require.NoError(t, err)
		return 0, string(out)
	}
	code, out := bash(line)
	require.Equal(t, 0, code, out)
	assert.FileExists(t, filepath.Join(ws, "out.tar"), "the yes ran the command")
	require.NoError(t, os.Remove(filepath.Join(ws, "out.tar")))

	code, out = bash(line)
	assert.Equal(t, vtexec.ExitRefused, code, "the id is spent: %s", out)
	assert.NoFileExists(t, filepath.Join(ws, "out.tar"))

	v = hook.Decide(context.Background(), hookEvent(hook.Claude, ws, "Bash", map[string]any{"command": command}), opt)
	require.NoError(t, json.Unmarshal(v.Input["command"], &line))
	edited := strings.Replace(line, "README.md", "file.txt", 1)
	code, out = bash(edited)
	assert.Equal(t, vtexec.ExitRefused, code, "an edited line matches no id: %s", out)
	assert.NoFileExists(t, filepath.Join(ws, "out.tar"))
}
