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

// git joins relative paths from its own files onto a base and removes
// ".." as text; vtexec follows links first. A path is confined in both
// readings: here an alternates entry that leads inside when links are
// followed (deep -> a/b/c) but, read as git reads it, into the sibling
// repository outside.
func TestGitPathsConfinedInBothReadings(t *testing.T) {
	ws := fixture(t)
	base := filepath.Dir(ws)
	require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git")))
	git := exec.Command("git", "init", "-q")
	git.Dir = ws
	require.NoError(t, git.Run())
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "a", "b", "c"), 0o755))
	require.NoError(t, os.Symlink("a/b/c", filepath.Join(ws, "deep")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "ws2", "objects"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "ws2", "objects"), 0o755))
	check := func(cmd string) vtexec.Decision {
		d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err)
		return d
	}
	require.Equal(t, "allow", string(check("git log").Decision))

	// Physically: .git/objects/../.. = ws, deep = ws/a/b/c, three ".."
	// back to ws, ws2/objects inside. Lexically: ws/deep/.. = ws, then
	// ../../ws2/objects = the sibling outside.
	alt := filepath.Join(ws, ".git", "objects", "info", "alternates")
	require.NoError(t, os.MkdirAll(filepath.Dir(alt), 0o755))
	require.NoError(t, os.WriteFile(alt, []byte("../../deep/../../../ws2/objects\n"), 0o644))
	d := check("git log")
	assert.Equal(t, "deny", string(d.Decision), d.Reason)

	// A pathspec and --git-dir are read both ways too.
	require.NoError(t, os.Remove(alt))
	for _, cmd := range []string{"git log -- deep/../../../../ws2/secret.txt", "git --git-dir=deep/../../../../ws2 log"} {
		d = check(cmd)
		assert.Equal(t, "deny", string(d.Decision), "%s: %s", cmd, d.Reason)
	}
}

// The other way round: a path that reads inside as text but leads outside
// when its links are followed (sibling -> ../ws2), given to a git command
// that opens it as the kernel does.
func TestGitNoIndexPathsConfinedInBothReadings(t *testing.T) {
	ws := fixture(t)
	for _, cmd := range []string{
		"git diff --no-index sibling/../ws2/secret.txt file.txt",
		"git diff --no-index file.txt escape/../etc/passwd",
	} {
		d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, "deny", string(d.Decision), "%s: %s", cmd, d.Reason)
	}
}

// A configuration value naming a file git opens as the kernel does:
// core.excludesFile = sibling/../ws2/secret.txt reads as text like a
// missing file inside, but leads to the secret outside.
func TestGitConfigPathsConfinedInBothReadings(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git")))
	for _, args := range [][]string{{"init", "-q"}, {"config", "core.excludesFile", "sibling/../ws2/secret.txt"}} {
		git := exec.Command("git", args...)
		git.Dir = ws
		require.NoError(t, git.Run())
	}
	for _, cmd := range []string{"git status", "git check-ignore -v --no-index x"} {
		d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, "deny", string(d.Decision), "%s: %s", cmd, d.Reason)
	}
}
