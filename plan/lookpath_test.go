package plan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What LookPath keeps follows the search path's directories: a program
// made earlier on the path, one made executable, one removed, and a
// directory of the path made later are all seen at once.
func TestLookPathFollowsChanges(t *testing.T) {
	base := t.TempDir()
	first, second := filepath.Join(base, "first"), filepath.Join(base, "second")
	later := filepath.Join(base, "later")
	require.NoError(t, os.Mkdir(first, 0o755))
	require.NoError(t, os.Mkdir(second, 0o755))
	path := first + string(filepath.ListSeparator) + second + string(filepath.ListSeparator) + later
	write := func(p string, mode os.FileMode) {
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), mode))
		require.NoError(t, os.Chmod(p, mode))
	}
	look := func() string {
		p, _ := LookPath("tool", path)
		return p
	}

	write(filepath.Join(second, "tool"), 0o755)
	assert.Equal(t, filepath.Join(second, "tool"), look())
	assert.Equal(t, filepath.Join(second, "tool"), look(), "kept")

	write(filepath.Join(first, "tool"), 0o644)
	assert.Equal(t, filepath.Join(second, "tool"), look(), "not executable")
	require.NoError(t, os.Chmod(filepath.Join(first, "tool"), 0o755))
	assert.Equal(t, filepath.Join(first, "tool"), look(), "made executable earlier on the path")

	require.NoError(t, os.Remove(filepath.Join(first, "tool")))
	require.NoError(t, os.Remove(filepath.Join(second, "tool")))
	assert.Equal(t, "", look(), "removed")
	assert.Equal(t, "", look(), "kept as missing")
	write(filepath.Join(second, "tool"), 0o755)
	assert.Equal(t, filepath.Join(second, "tool"), look(), "installed after it was kept as missing")
	require.NoError(t, os.Remove(filepath.Join(second, "tool")))
	assert.Equal(t, "", look())

	require.NoError(t, os.Mkdir(later, 0o755))
	write(filepath.Join(later, "tool"), 0o755)
	assert.Equal(t, filepath.Join(later, "tool"), look(), "a directory of the path made later")

	require.NoError(t, os.Rename(later, later+".old"))
	require.NoError(t, os.Mkdir(later, 0o755))
	assert.Equal(t, "", look(), "a directory of the path replaced")
}
