package gitrepo

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The git directory's walk is kept while none of its directories
// changes, and walked again after any change deep inside it: an entry
// made, removed or renamed, or a directory's own mode. A root walked a
// second time is watched from then on.
func TestGitWalkIsKeptUntilADirectoryChanges(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"refs/heads", "refs/tags", "objects/ab", "logs/refs/heads"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	settle := func() { time.Sleep(RacyWindow + 20*time.Millisecond) } // a walk of just-changed directories is not kept
	settle()
	c := New()
	first := c.WalkGitDir(root)
	assert.Nil(t, first.watch, "a root walked once is not watched (a one-shot check would only pay for it)")
	for _, change := range []struct {
		name string
		do   func() error
	}{
		{"a link deep inside", func() error {
			return os.Symlink("/etc/passwd", filepath.Join(root, "refs", "heads", "stolen"))
		}},
		{"a file removed", func() error { return os.Remove(filepath.Join(root, "refs", "heads", "stolen")) }},
		{"a directory made", func() error { return os.Mkdir(filepath.Join(root, "objects", "cd"), 0o755) }},
		{"a rename", func() error {
			return os.Rename(filepath.Join(root, "objects", "cd"), filepath.Join(root, "objects", "ef"))
		}},
		{"a directory's mode", func() error { return os.Chmod(filepath.Join(root, "logs"), 0o700) }},
	} {
		settle()
		w := c.WalkGitDir(root)
		if runtime.GOOS == "linux" {
			require.NotNil(t, w.watch, "inotify watches a root walked again")
		}
		require.Same(t, w, c.WalkGitDir(root), "kept while nothing changes")
		require.NoError(t, change.do(), change.name)
		assert.NotSame(t, w, c.WalkGitDir(root), "%s: walked again", change.name)
	}
}
