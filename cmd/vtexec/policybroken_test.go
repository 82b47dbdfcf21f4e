package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rule that does not load stops the commands of its program, and says
// where it is and what is wrong; every other command is decided as if it
// were not there. A file that does not parse at all stops everything,
// naming its line.
func TestBrokenRuleFailsClosedForItsProgramOnly(t *testing.T) {
	ws := cliWorkspace(t)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec", "policy.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o755))
	require.NoError(t, os.WriteFile(user, []byte("[[rule]]\nprogram = \"wc\"\ndecision = \"allow\"\n\n[[rule]]\nprogram = \"tar\"\ndecision = \"allw\"\n"), 0o644))

	code, out, _ := cli(t, "", "check", "--json", "--workspace", ws, "--", "tar -tf a.tar")
	assert.Equal(t, exitDeny, code)
	assert.Contains(t, out, `"code":"bad_policy"`)
	assert.Contains(t, out, "policy.toml:5", "the broken rule's line")
	code, _, _ = cli(t, "", "check", "--workspace", ws, "--", "cat README.md | wc -l")
	assert.Equal(t, exitAllow, code, "other programs are not held up")
	code, out, _ = cli(t, "", "policy", "check", "--workspace", ws)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "policy.toml:5")
	assert.Contains(t, out, "allw")

	require.NoError(t, os.WriteFile(user, []byte("[[rule]\nprogram = \"wc\"\n"), 0o644))
	code, out, _ = cli(t, "", "check", "--json", "--workspace", ws, "--", "ls")
	assert.NotEqual(t, exitAllow, code, "a file that does not parse stops everything")
	assert.Contains(t, out, "bad_policy")
	assert.Contains(t, out, "policy.toml:1")
}
