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
