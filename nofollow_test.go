package vtexec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// Files vtexec writes for itself inside the workspace never follow a
// link planted at their name.
func TestOwnWritesDoNotFollowPlantedLinks(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	outside := t.TempDir()
	dot := filepath.Join(dir, ".vtexec")
	require.NoError(t, os.Mkdir(dot, 0o755))

	// .gitignore planted as a link to a file that does not exist yet, and
	// the lock of policy.local.toml as a link to one that does.
	require.NoError(t, os.Symlink(filepath.Join(outside, "created"), filepath.Join(dot, ".gitignore")))
	res := run(t, Request{Command: "tar --version", Workspace: dir, Approver: &fakeApprover{answer: AnswerAlways}, AuditLog: "off"})
	assert.Equal(t, "allow", string(res.Decision.Decision))
	assert.NoFileExists(t, filepath.Join(outside, "created"), ".gitignore link followed")
	fi, err := os.Lstat(filepath.Join(dot, ".gitignore"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the planted link is left alone")

	victim := filepath.Join(outside, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o644))
	lock := filepath.Join(dot, "policy.local.toml.lock")
	require.NoError(t, os.Remove(lock))
	require.NoError(t, os.Symlink(victim, lock))
	_, err = testEngine.Run(t.Context(), Request{Command: "tar --help", Workspace: dir, Approver: &fakeApprover{answer: AnswerAlways}, AuditLog: "off"})
	assert.Error(t, err, "a lock file that is a link is refused")

	// policy.local.toml itself as a link: the atomic write replaces the
	// link, never writes through it.
	local := filepath.Join(dot, "policy.local.toml")
	require.NoError(t, os.Remove(local))
	require.NoError(t, os.Symlink(victim, local))
	require.NoError(t, fsutil.WriteAtomic(local, []byte("# new\n"), 0o644))
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data))
	fi, err = os.Lstat(local)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link was replaced by a file")
}

// ensureGitignore refuses a .vtexec that is not a real directory.
func TestEnsureGitignoreRefusesLinkedDir(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, ".vtexec")))
	assert.Error(t, ensureGitignore(filepath.Join(dir, ".vtexec")))
	assert.NoFileExists(t, filepath.Join(outside, ".gitignore"))
}
