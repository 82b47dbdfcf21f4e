package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A kept root follows what happens on the way to it: a component
// replaced by a link, the root replaced by a file.
func TestRootResolutionFollowsChanges(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ws := filepath.Join(base, "a", "b", "ws")
	elsewhere := filepath.Join(base, "elsewhere", "b", "ws")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.MkdirAll(elsewhere, 0o755))

	w, err := New(ws)
	require.NoError(t, err)
	assert.Equal(t, ws, w.Root())
	w, err = New(ws)
	require.NoError(t, err)
	assert.Equal(t, ws, w.Root(), "kept")

	// a/ becomes a link to elsewhere/: the same name now resolves there.
	require.NoError(t, os.Rename(filepath.Join(base, "a"), filepath.Join(base, "a.old")))
	require.NoError(t, os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(base, "a")))
	w, err = New(ws)
	require.NoError(t, err)
	assert.Equal(t, elsewhere, w.Root(), "a component replaced by a link")

	// The directory the link leads to is replaced by a file.
	require.NoError(t, os.Rename(elsewhere, elsewhere+".old"))
	require.NoError(t, os.WriteFile(elsewhere, nil, 0o644))
	_, err = New(ws)
	assert.Error(t, err, "the root is now a file")
}
