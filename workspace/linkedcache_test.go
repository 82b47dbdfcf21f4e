package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The walk of the protected places for links is kept between requests
// (each a fresh Workspace of the same root) while nothing could have put
// a link there; a link made there later, however it gets there, protects
// its target on the next request.
func TestLinkedTargetsKeptUntilALinkCanHaveAppeared(t *testing.T) {
	root := t.TempDir()
	root, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git", "refs", "heads"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	for _, f := range []string{"a", "b", "c", "d", "e"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, "src", f), []byte(f), 0o644))
	}
	writable := func(name string) bool {
		w, err := New(root)
		require.NoError(t, err)
		_, err = w.Resolve(filepath.Join("src", name), Write)
		return err == nil
	}
	steps := []struct {
		name   string
		plant  func()
		target string
	}{
		{"a link in a directory walked before", func() {
			require.NoError(t, os.Symlink("../../../src/a", filepath.Join(root, ".git", "refs", "heads", "l")))
		}, "a"},
		{"a link in a directory made since", func() {
			require.NoError(t, os.MkdirAll(filepath.Join(root, ".git", "new", "deeper"), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(root, "src", "b"), filepath.Join(root, ".git", "new", "deeper", "l")))
		}, "b"},
		{"a directory holding a link renamed in", func() {
			staged := filepath.Join(root, "staged")
			require.NoError(t, os.MkdirAll(staged, 0o755))
			require.NoError(t, os.Symlink(filepath.Join(root, "src", "c"), filepath.Join(staged, "l")))
			require.NoError(t, os.Rename(staged, filepath.Join(root, ".git", "moved")))
		}, "c"},
		{"a protected place made since", func() {
			require.NoError(t, os.MkdirAll(filepath.Join(root, ".vscode"), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(root, "src", "d"), filepath.Join(root, ".vscode", "l")))
		}, "d"},
	}
	for _, s := range steps {
		// Once asked for again, the walk is kept.
		for range 3 {
			require.True(t, writable(s.target), "%s: src/%s is writable before", s.name, s.target)
		}
		s.plant()
		assert.False(t, writable(s.target), "%s: the link's target is protected on the next request", s.name)
		assert.False(t, writable(s.target), "%s: and on the one after", s.name)
		assert.True(t, writable("e"), "%s: what no link leads to is not", s.name)
		for _, l := range []string{filepath.Join(root, ".git", "refs", "heads", "l"), filepath.Join(root, ".git", "new", "deeper", "l"),
			filepath.Join(root, ".git", "moved", "l"), filepath.Join(root, ".vscode", "l")} {
			os.Remove(l)
		}
		for range 3 {
			require.True(t, writable(s.target), "%s: writable once the link is gone", s.name)
		}
	}
}
