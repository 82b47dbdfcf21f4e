//go:build !windows

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("hello"), 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(file, link))
	zero := filepath.Join(dir, "zero")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))

	data, id, err := ReadRegular(file, 5, false)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))
	st, err := Stat(file, false)
	require.NoError(t, err)
	assert.Equal(t, st, id, "the identity read is the identity stat'ed")

	data, _, err = ReadRegular(link, 5, true)
	require.NoError(t, err, "a link is followed when asked")
	assert.Equal(t, "hello", string(data))

	for _, c := range []struct {
		path   string
		max    int64
		follow bool
		reason string
	}{
		{file, 4, false, "more than the 4 bytes"},
		{link, 5, false, "symbolic link"},
		{zero, 5, true, "character device"},
		{zero, 5, false, "symbolic link"},
		{fifo, 5, false, "FIFO"},
		{dir, 5, false, "directory"},
	} {
		_, _, err := ReadRegular(c.path, c.max, c.follow)
		var fe *FileError
		require.True(t, errors.As(err, &fe), "%s: %v", c.path, err)
		assert.Contains(t, fe.Reason, c.reason, c.path)
	}
	_, _, err = ReadRegular(filepath.Join(dir, "missing"), 5, false)
	assert.ErrorIs(t, err, os.ErrNotExist)
	id, err = Stat(filepath.Join(dir, "missing"), false)
	require.NoError(t, err)
	assert.Equal(t, Identity{}, id)
}

// A lock file planted as a link is refused, not followed.
func TestLockRefusesLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	lock := filepath.Join(dir, "x.lock")
	require.NoError(t, os.Symlink(target, lock))
	_, err := Lock(lock)
	require.Error(t, err)
	assert.NoFileExists(t, target)
}
