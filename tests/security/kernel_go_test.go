//go:build !windows

package security

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApprovedGoTestRunsConfined: go test ./... on a module with a dependency
// works confined once a person approved it: the user's module cache is
// readable (not writable), the build cache is the box's own, and the
// proxy is off.
func TestApprovedGoTestRunsConfined(t *testing.T) {
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
		[]byte("[[rule]]\nprogram = \"go\"\nsubcommand = [\"test\"]\ndecision = \"allow\"\n"), 0o644))
	sum, err := os.ReadFile("../../go.sum")
	require.NoError(t, err)
	files := map[string]string{
		"go.mod":    "module gm\n\ngo 1.26\n\nrequire github.com/google/uuid v1.6.0\n",
		"go.sum":    string(sum),
		"m_test.go": "package gm\n\nimport (\n\t\"testing\"\n\n\t\"github.com/google/uuid\"\n)\n\nfunc TestX(t *testing.T) { _ = uuid.New() }\n",
	}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(s.ws, name), []byte(body), 0o644))
	}
	cmd := s.command(t, "")
	// Compiling the standard library into the box's fresh build cache
	// takes a while on a loaded 2-core machine.
	n := len(cmd.Args)
	cmd.Args = append(cmd.Args[:n-2:n-2], "--timeout", "5m", "--", "go test ./...")
	cmd.Env = append(cmd.Env, "GOMODCACHE="+strings.TrimSpace(string(modcache)))
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var res runJSON
	require.NoError(t, jsonUnmarshal(out, &res))
	assert.Equal(t, 0, res.ExitCode, "%s%s", res.Stdout, res.Stderr)
	assert.Contains(t, res.Stdout, "ok")
}
