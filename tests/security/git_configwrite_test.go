//go:build linux

package security

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGitConfigWritesAreRefused: git commands that write git's
// configuration (or .git/worktrees and .git/modules, read-only in every
// box) are refused with a code of their own, even when a person's rule
// allows every git command — they are not asked, approved and then left
// half done by a read-only configuration (a branch renamed but its
// upstream lost). Git commands that only warn about the configuration
// still run.
func TestGitConfigWritesAreRefused(t *testing.T) {
	s := newAttackSetup(t)
	for _, c := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one"},
		{"remote", "add", "origin", "https://example.com/r.git"},
		{"update-ref", "refs/remotes/origin/main", "HEAD"},
	} {
		out, err := exec.Command("git", append([]string{"-C", s.ws}, c...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
		[]byte("[[rule]]\nprogram = \"git\"\ndecision = \"allow\"\n"), 0o644))
	configBefore, err := os.ReadFile(filepath.Join(s.ws, ".git", "config"))
	require.NoError(t, err)
	for _, line := range []string{
		"git config user.name someone",
		"git config --unset remote.origin.url",
		"git remote add up ./other",
		"git remote set-url origin ./other",
		"git remote remove origin",
		"git branch --track two origin/main",
		"git branch -u origin/main",
		"git branch -m main renamed",
		"git checkout --track origin/main",
		"git push -u origin main",
		"git worktree add ./wt",
		"git submodule init",
	} {
		out, _ := s.vtexecRun(t, "", line).Output()
		var res runJSON
		require.NoError(t, json.Unmarshal(out, &res), "%s", out)
		assert.Equal(t, "deny", string(res.Decision.Decision), "%s: %s", line, res.Decision.Reason)
		assert.Equal(t, "git_config_write", res.Decision.Code, "%s: %s", line, res.Decision.Reason)
	}
	configAfter, err := os.ReadFile(filepath.Join(s.ws, ".git", "config"))
	require.NoError(t, err)
	assert.Equal(t, string(configBefore), string(configAfter))
	assert.NoDirExists(t, filepath.Join(s.ws, "wt"))

	// Deleting a branch runs; git warns that it could not drop the
	// branch's section, and the branch is gone.
	out, err := exec.Command("git", "-C", s.ws, "branch", "old").CombinedOutput()
	require.NoError(t, err, "%s", out)
	res, _ := s.runLine(t, "", "git branch -D old")
	assert.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	out, err = exec.Command("git", "-C", s.ws, "branch", "--list", "old").CombinedOutput()
	require.NoError(t, err)
	assert.Empty(t, string(out))
}
