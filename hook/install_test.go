package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A settings file with other hooks, on the same event and others, and
// other settings (a large number included, which must not be rounded).
const otherSettings = `{
  "model": {"name": "gemini-2.5-flash"},
  "big": 12345678901234567890,
  "hooks": {
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"name": "audit", "type": "command", "command": "/usr/local/bin/audit-hook", "timeout": 5000}]}
    ],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/lint.sh"}]}
    ],
    "AfterTool": [{"matcher": ".*", "hooks": [{"type": "command", "command": "/opt/after.sh"}]}]
  }
}`

func TestInstallThenUninstallKeepsOtherHooks(t *testing.T) {
	for _, h := range []Harness{Gemini, Claude} {
		installed, changed, err := Edit([]byte(otherSettings), h, "/opt/vt exec/vtexec", "", true)
		require.NoError(t, err)
		require.True(t, changed)
		var s struct {
			Hooks map[string][]struct {
				Matcher string           `json:"matcher"`
				Hooks   []map[string]any `json:"hooks"`
			} `json:"hooks"`
		}
		require.NoError(t, json.Unmarshal(installed, &s))
		groups := s.Hooks[eventName(h)]
		last := groups[len(groups)-1]
		assert.Equal(t, matchers[h], last.Matcher)
		assert.Equal(t, `'/opt/vt exec/vtexec' hook --harness `+string(h), last.Hooks[0]["command"])
		assert.Len(t, groups, 2, "the other hook of the event stays")

		// Idempotent: installing again changes nothing.
		again, changed, err := Edit(installed, h, "/opt/vt exec/vtexec", "", true)
		require.NoError(t, err)
		assert.False(t, changed)
		assert.Equal(t, installed, again)

		removed, changed, err := Edit(installed, h, "/opt/vt exec/vtexec", "", false)
		require.NoError(t, err)
		require.True(t, changed)
		assert.JSONEq(t, otherSettings, string(removed), "%s: as it was", h)
		assert.Contains(t, string(removed), "12345678901234567890")

		_, changed, err = Edit(removed, h, "/opt/vt exec/vtexec", "", false)
		require.NoError(t, err)
		assert.False(t, changed, "nothing left to uninstall")
	}
}

func TestInstallMovesAnOldVtexecHook(t *testing.T) {
	// A vtexec at another path is replaced, not added beside.
	old, _, err := Edit(nil, Gemini, "/old/vtexec", "", true)
	require.NoError(t, err)
	moved, changed, err := Edit(old, Gemini, "/new/vtexec", "", true)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.NotContains(t, string(moved), "/old/vtexec")
	assert.Equal(t, 1, strings.Count(string(moved), "/new/vtexec"))
	// Uninstalling the last hook leaves no empty hooks object.
	empty, _, err := Edit(moved, Gemini, "/new/vtexec", "", false)
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(empty))
}

func TestEditRefusesWhatItCannotRead(t *testing.T) {
	for _, data := range []string{`[1]`, `{"hooks": 3}`, `{"hooks": {"BeforeTool": {}}}`, `{`} {
		_, _, err := Edit([]byte(data), Gemini, "/v/vtexec", "", true)
		assert.Error(t, err, data)
	}
}

func TestInstallCommandWritesTheFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".gemini", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(otherSettings), 0o600))
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb, []string{"HOME=" + home})
		return code, out.String() + errb.String()
	}
	code, out := run("install", "--harness", "gemini", "--dry-run")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "hook --harness gemini")
	data, _ := os.ReadFile(path)
	assert.Equal(t, otherSettings, string(data), "--dry-run writes nothing")

	code, out = run("install", "--harness", "gemini")
	require.Equal(t, 0, code, out)
	data, _ = os.ReadFile(path)
	assert.Contains(t, string(data), "hook --harness gemini")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file keeps its mode")

	code, out = run("uninstall", "--harness", "gemini")
	require.Equal(t, 0, code, out)
	data, _ = os.ReadFile(path)
	assert.JSONEq(t, otherSettings, string(data))

	// Project scope for Claude Code creates .claude/settings.json.
	proj := t.TempDir()
	code, out = run("install", "--harness", "claude", "--scope", "project", "--workspace", proj)
	require.Equal(t, 0, code, out)
	assert.FileExists(t, filepath.Join(proj, ".claude", "settings.json"))

	// Codex's TOML is not edited: the lines are printed instead.
	code, out = run("install", "--harness", "codex")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "[[hooks.PreToolUse.hooks]]")
}
