package validators

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/testns"
)

// scanRemoval notes a directory on another file system and does not go
// into it: a tmpfs mounted inside the tree, holding a file.
func TestRmScanStopsAtMounts(t *testing.T) {
	if !testns.Root(t) { // mounting a tmpfs needs root
		return
	}
	tree := t.TempDir()
	mnt := filepath.Join(tree, "sub", "mnt")
	require.NoError(t, os.MkdirAll(mnt, 0o755))
	require.NoError(t, syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16k"))
	t.Cleanup(func() { syscall.Unmount(mnt, 0) })
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "inside"), nil, 0o644))
	scan := scanRemoval(nil, tree, rmTreeLimit)
	assert.Equal(t, mnt, scan.mount)
	assert.Zero(t, scan.files, "nothing below the mount is counted")
}
