//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A link in a place that configures git or holds code it runs, in the
// git directory or a submodule's, protects what it leads to; one among
// a git directory's objects, refs or logs (data, and in a busy
// repository most of its entries) is not looked at. A directory of
// those names elsewhere in a protected place is.
func TestLinkWalkSkipsGitData(t *testing.T) {
	dir := t.TempDir()
	git := filepath.Join(dir, ".git")
	sub := filepath.Join(git, "modules", "sub")
	settings := filepath.Join(dir, ".claude")
	for _, d := range []string{filepath.Join(git, "hooks"), filepath.Join(git, "refs", "heads"), filepath.Join(git, "logs"),
		filepath.Join(git, "objects", "ab"), filepath.Join(sub, "hooks"), filepath.Join(sub, "objects"), filepath.Join(settings, "logs")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for _, head := range []string{git, sub} {
		require.NoError(t, os.WriteFile(filepath.Join(head, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	}
	links := map[string]bool{ // link -> its target is protected
		filepath.Join(git, "hooks", "pre-commit"):    true,
		filepath.Join(sub, "hooks", "post-checkout"): true,
		filepath.Join(sub, "config"):                 true,
		filepath.Join(settings, "logs", "hook.sh"):   true,
		filepath.Join(git, "refs", "heads", "main"):  false,
		filepath.Join(git, "logs", "HEAD"):           false,
		filepath.Join(git, "objects", "ab", "cd"):    false,
		filepath.Join(sub, "objects", "ef"):          false,
	}
	want := map[string]bool{}
	i := 0
	for link, protected := range links {
		i++
		target := filepath.Join(dir, "target"+strconv.Itoa(i))
		require.NoError(t, os.WriteFile(target, []byte("x\n"), 0o644))
		require.NoError(t, os.Symlink(target, link))
		if protected {
			want[target] = true
		}
	}
	b := &Box{spec: Spec{ReadWrite: []string{dir}, GitDirs: []string{git}, Protected: []Protected{{Path: settings, Dir: true}}}}
	got, err := b.linkTargets()
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// A walk that found no link is kept while nothing was made, removed or
// renamed in what it read: a link planted after, in the git directory,
// in a new directory of it, or in a protected place that was missing,
// protects what it leads to at the next start. One that found a link is
// made every time.
func TestLinkWalkKeptOnlyWhileNothingChanged(t *testing.T) {
	for _, plant := range []string{".git/hooks/pre-push", ".git/info/new/x", ".vscode/tasks.json"} {
		t.Run(filepath.Dir(plant), func(t *testing.T) {
			dir := t.TempDir()
			git := filepath.Join(dir, ".git")
			require.NoError(t, os.MkdirAll(filepath.Join(git, "hooks"), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(git, "info"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
			target := filepath.Join(dir, "evil.sh")
			require.NoError(t, os.WriteFile(target, []byte("x\n"), 0o644))
			b := &Box{spec: Spec{ReadWrite: []string{dir}, GitDirs: []string{git}, Protected: []Protected{{Path: filepath.Join(dir, ".vscode"), Dir: true}}}}
			walks := func() int64 {
				before := linkWalksMade.Load()
				got, err := b.linkTargets()
				require.NoError(t, err)
				assert.Empty(t, got)
				return linkWalksMade.Load() - before
			}
			assert.Equal(t, int64(1), walks(), "asked once: walked")
			assert.Equal(t, int64(1), walks(), "asked again: walked, and kept")
			assert.Equal(t, int64(0), walks(), "kept: not walked")

			link := filepath.Join(dir, plant)
			require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
			require.NoError(t, os.Symlink(target, link))
			for range 3 {
				got, err := b.linkTargets()
				require.NoError(t, err)
				assert.Equal(t, map[string]bool{target: true}, got, "the planted link protects its target")
			}
		})
	}
}
