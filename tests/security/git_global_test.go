package security

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// Values of the user's global git configuration (tokens in insteadOf
// URLs, aliases, credentials) never reach a command's output: commands
// get a private HOME whatever the confinement, and the check inspects the
// repository with the same, so it judges the configuration the command
// will see.
func TestGitNeverPrintsTheUsersGlobalConfiguration(t *testing.T) {
	ws := fixture(t)
	home := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(
		"[url \"https://x:ghp_TOKEN7@github.com/\"]\n\tinsteadOf = https://github.com/\n"+
			"[alias]\n\tsecret = log --grep=ghp_TOKEN7\n[user]\n\tname = Ada\n\temail = ada@example.com\n"), 0o644))
	t.Setenv("HOME", home)
	require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git")))
	git := exec.Command("git", "init", "-q")
	git.Dir = ws
	require.NoError(t, git.Run())
	git = exec.Command("git", "remote", "add", "origin", "https://github.com/o/r")
	git.Dir = ws
	require.NoError(t, git.Run())
	ctx := context.Background()
	for _, confinement := range []string{"", "off"} {
		for _, cmd := range []string{"git remote -v", "git config --list", "git config --get-regexp url", "git ls-remote --get-url origin",
			"git config --get alias.secret", "git config --global --list", "git config --list --show-origin"} {
			res, err := testEngine.Run(ctx, vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off", Confinement: confinement})
			require.NoError(t, err)
			assert.NotContains(t, res.Stdout+res.Stderr, "ghp_TOKEN7", "%s (confinement %q): %s", cmd, confinement, res.Decision.Reason)
		}
	}
}
