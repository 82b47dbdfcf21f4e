//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A spec's key is kept from the second time it is asked for, while no
// entry comes or goes under the name of a path it names or of a
// directory above one; a path put in another's place, or a directory
// above renamed away and another put there, makes it anew, and a
// change elsewhere does not.
func TestSpecKeyKeptWhileItsPathsAreTheSame(t *testing.T) {
	for _, replace := range []string{"ws/.git", "ws/.envrc", "ws"} {
		t.Run(replace, func(t *testing.T) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
			spec := Spec{ReadWrite: []string{ws}, GitDirs: []string{filepath.Join(ws, ".git")},
				Protected: []Protected{{Path: filepath.Join(ws, ".envrc")}, {Path: filepath.Join(ws, ".git"), Dir: true}}}
			made := func() (string, int64) {
				before := specKeysMade.Load()
				key := SpecKey(spec, ModeRequired)
				return key, specKeysMade.Load() - before
			}
			first, n := made()
			assert.Equal(t, int64(1), n)
			_, n = made()
			assert.Equal(t, int64(1), n, "asked again: made, and kept")
			key, n := made()
			assert.Equal(t, int64(0), n, "kept")
			assert.Equal(t, first, key)
			require.NoError(t, os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644))
			_, n = made()
			assert.Equal(t, int64(0), n, "a file made elsewhere changes nothing")

			p := filepath.Join(base, replace)
			if _, err := os.Lstat(p); err == nil {
				require.NoError(t, os.Rename(p, p+".old"))
			}
			require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
			if replace == "ws/.envrc" {
				require.NoError(t, os.WriteFile(p, nil, 0o644))
			}
			key, n = made()
			assert.Equal(t, int64(1), n, "made anew")
			assert.NotEqual(t, first, key, "another file in its place")
			assert.Equal(t, key, specKey(string(specText(spec, ModeRequired)), specPaths(spec)), "as the paths are now")
		})
	}
}
