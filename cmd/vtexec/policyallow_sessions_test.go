package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/tests/projects"
	"github.com/vtexec/vtexec/workspace"
)

// vtexec policy allow, run on every command of the agent sessions of
// tests/projects (each simple command of it, as the check splits it),
// writes a rule the policy loads: the policy is checked after each. A
// program vtexec refuses whatever the policy says is an error, not a
// rule.
func TestPolicyAllowOnEverySessionCommand(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "tests", "projects", "testdata", "*.session"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".session")
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			dir := filepath.Join(t.TempDir(), "proj")
			out, err := exec.Command("cp", "-a", strings.TrimSuffix(f, ".session"), dir).CombinedOutput()
			require.NoError(t, err, "%s", out)
			text, err := os.ReadFile(f)
			require.NoError(t, err)
			steps, err := projects.ParseSession(string(text))
			require.NoError(t, err)
			ws, err := workspace.New(dir)
			require.NoError(t, err)
			var checker execpolicy.Checker
			written, refused := 0, 0
			for _, st := range steps {
				for _, p := range checker.Check(st.Command, ws).Parts {
					if len(p.Argv) == 0 || p.Program == "" {
						continue // a builtin, or no program to name
					}
					code, stdout, stderr := cli(t, "", append([]string{"policy", "allow", "--workspace", dir, "--"}, p.Argv...)...)
					if code != 0 {
						refused++
						assert.NotContains(t, stderr, "internal_error", "%s: %v", st.Command, p.Argv)
						continue
					}
					written++
					code, _, stderr = cli(t, "", "policy", "check", "--workspace", dir)
					require.Equal(t, 0, code, "after policy allow -- %q (%s): %s%s", p.Argv, st.Command, stdout, stderr)
				}
			}
			t.Logf("%s: %d rules written, %d commands policy allow declined", name, written, refused)
			assert.Greater(t, written, 50)
		})
	}
}
