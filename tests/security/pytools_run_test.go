//go:build hostprograms && !windows

package security

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A configuration written by the same command, before the tool that
// obeys it: the later step is checked again just before it runs, so
// flake8's local plugin never runs — with the box off. The same command
// run by bash runs it.
func TestToolConfigurationWrittenInTheSameCommand(t *testing.T) {
	if _, err := exec.LookPath("flake8"); err != nil {
		t.Fatalf("flake8 is needed (.ci/run installs it): %v", err)
	}
	for _, tc := range []struct{ name, config string }{
		{"a local plugin", "[flake8:local-plugins]\nextension =\n  X = evil:P\npaths = .\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			require.NoError(t, os.MkdirAll(filepath.Join(ws, "src"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "src", "a.py"), []byte("x = 1\n"), 0o644))
			pwned, out := filepath.Join(base, "pwned"), filepath.Join(base, "report.txt")
			plugin := "import os\nopen(" + strconv.Quote(pwned) + ", 'w').close()\nclass P:\n    name = 'x'\n    version = '1'\n    def __init__(self, tree): pass\n    def run(self): return iter(())\n"
			require.NoError(t, os.WriteFile(filepath.Join(ws, "evil.py"), []byte(plugin), 0o644))
			config := []byte(strings.ReplaceAll(tc.config, "OUT", out))
			cmd := "printf '%s' " + shellQuote(string(config)) + " > setup.cfg && flake8 src"
			env := append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
			run := exec.Command(builtVtexec(t), "run", "--json", "--confinement", "off", "--workspace", ws, "--", cmd)
			run.Env = env
			got, _ := run.Output()
			var res struct {
				ExitCode int `json:"exit_code"`
				Stopped  *struct {
					Code string `json:"code"`
				} `json:"stopped"`
			}
			require.NoError(t, json.Unmarshal(got, &res), "%s", got)
			require.NotNil(t, res.Stopped, "%s", got)
			assert.NoFileExists(t, pwned, "the plugin ran")
			assert.NoFileExists(t, out, "the report was written outside")

			// The probe: bash runs the same command and both happen.
			require.NoError(t, os.Remove(filepath.Join(ws, "setup.cfg")))
			direct := exec.Command("bash", "-c", cmd)
			direct.Dir = ws
			direct.CombinedOutput()
			assert.FileExists(t, pwned, "the probe itself: flake8 imports the local plugin")
		})
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
