//go:build linux

package security

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vtexec is two programs, vtexec and vtexec-serve beside it (the MCP
// server vtexec serve becomes): neither can be started from a command
// string, under its name or through a link, whichever of the two checks
// the command.
func TestNeitherOfVtexecsProgramsCanRunTheOther(t *testing.T) {
	ws := fixture(t)
	bin := builtVtexec(t)
	links := t.TempDir()
	for _, name := range []string{"vtexec", "vtexec-serve"} {
		require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(bin), name), filepath.Join(links, "innocent-"+name)))
	}
	// The links on the trusted PATH, as a user's toolchain directory.
	cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec")
	require.NoError(t, os.MkdirAll(cfg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "policy.toml"), []byte("[paths]\nextra = ["+strconv.Quote(links)+"]\n"), 0o644))
	for _, cmd := range []string{
		"vtexec-serve --workspace / --audit off",
		"timeout 5 vtexec-serve --jsonl",
		"innocent-vtexec-serve --jsonl",
		"timeout 5 innocent-vtexec run --confinement off -- ls",
		"innocent-vtexec check -- ls",
	} {
		out, err := exec.Command(bin, "check", "--json", "--workspace", ws, "--", cmd).Output()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			require.NoError(t, err)
		}
		var d struct{ Decision, Code, Reason string }
		require.NoError(t, json.Unmarshal(out, &d), "%s", out)
		assert.Equal(t, "deny", d.Decision, cmd)
		assert.Equal(t, "forbidden_program", d.Code, "%s: %s", cmd, d.Reason)
	}
}
