//go:build !windows

package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTakeDirWaitsForNoShare(t *testing.T) {
	dir := t.TempDir()
	release, err := ShareDir(dir)
	require.NoError(t, err)
	_, ok := TakeDir(dir)
	assert.False(t, ok, "taken while shared")
	release()
	take, ok := TakeDir(dir)
	require.True(t, ok)
	take()
}

func TestShareDirSeesTheDirectoryMovedAway(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Mkdir(dir, 0o700))
	take, ok := TakeDir(dir)
	require.True(t, ok)
	got := make(chan error, 1)
	go func() {
		release, err := ShareDir(dir)
		if release != nil {
			release()
		}
		got <- err
	}()
	waitForLockWaiter(t, dir)
	require.NoError(t, os.Rename(dir, dir+".moved"))
	require.NoError(t, os.Mkdir(dir, 0o700)) // made again by another
	take()
	assert.ErrorIs(t, <-got, ErrMoved)

	release, err := ShareDir(dir)
	require.NoError(t, err)
	release()
	_, err = ShareDir(filepath.Join(t.TempDir(), "missing"))
	assert.ErrorIs(t, err, ErrMoved)
}

// waitForLockWaiter returns once a lock on dir is awaited: /proc/locks
// lists a waiter with "->". Without /proc/locks it waits a while.
func waitForLockWaiter(t *testing.T, dir string) {
	t.Helper()
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	ino := fmt.Sprintf(":%d ", fi.Sys().(*syscall.Stat_t).Ino)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		locks, err := os.ReadFile("/proc/locks")
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			return
		}
		for _, l := range strings.Split(string(locks), "\n") {
			if strings.Contains(l, "->") && strings.Contains(l, ino) {
				return
			}
		}
	}
	t.Fatal("no one waits for the lock")
}
