package dirwatch

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWatchSeesChangesInTheDirectoriesAdded(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.Nil(t, New())
		assert.True(t, New().Changed(), "no watch: everything has changed")
		return
	}
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	other := filepath.Join(root, "other")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.Mkdir(other, 0o755))
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(sub, link))

	w := New()
	require.NotNil(t, w)
	defer w.Close()
	assert.False(t, w.Add(link), "a final link is not followed")
	assert.True(t, w.Add(sub))
	assert.False(t, w.Changed())
	require.NoError(t, os.WriteFile(filepath.Join(other, "x"), nil, 0o644))
	assert.False(t, w.Changed(), "a directory not added")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "x"), nil, 0o644))
	assert.True(t, w.Changed())
	assert.True(t, w.Changed(), "stays changed")

	f := New()
	require.NotNil(t, f)
	assert.True(t, f.AddFollow(link), "AddFollow follows the link")
	require.NoError(t, os.Remove(filepath.Join(sub, "x")))
	assert.True(t, f.Changed())
	f.Close()
	assert.True(t, f.Changed(), "a closed watch has changed")
	assert.False(t, f.Add(sub))

	var none *Watch
	assert.True(t, none.Changed())
	none.Close()
}
