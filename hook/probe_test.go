package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hook test says whether the hook is installed and whether a harness has
// run it: both must hold for exit 0.
func TestHookTestReportsInstallAndSighting(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	run := func() (int, string) {
		var out, errb bytes.Buffer
		code := mainTest([]string{"--harness", "gemini", "--workspace", t.TempDir()}, &out, &errb, getenv)
		return code, out.String() + errb.String()
	}
	code, out := run()
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "not installed")
	assert.Contains(t, out, "no event from gemini seen yet")
	assert.Contains(t, out, "trusted folder")

	settings := filepath.Join(home, ".gemini", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	require.NoError(t, os.WriteFile(settings, []byte(`{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"'/x/vtexec' hook --harness gemini"}]}]}}`), 0o644))
	code, out = run()
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "installed in "+settings)

	noteSighting(Event{Harness: Gemini, ToolName: "run_shell_command", Cwd: "/w"})
	code, out = run()
	assert.Equal(t, 0, code, out)
	assert.True(t, strings.Contains(out, "tool run_shell_command, in /w"), out)
}
