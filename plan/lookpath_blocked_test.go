//go:build linux

package plan

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A directory of the search path beneath one this user may not search
// (another user's home) is passed over by looking at the directory that
// blocks it, once per lookup, not with a stat beneath it per name; and
// once that directory may be searched, what is beneath it is found
// first, as exec would find it.
func TestLookPathPassesOverWhatThisUserCannotReach(t *testing.T) {
	base := t.TempDir()
	locked := filepath.Join(base, "home")
	hidden := filepath.Join(locked, "bin")
	reachable := filepath.Join(base, "bin")
	for _, d := range []string{hidden, reachable} {
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "tool"), []byte("#!/bin/sh\n"), 0o755))
	}
	path := hidden + string(filepath.ListSeparator) + reachable
	lockedMode := os.FileMode(0) // its owner, without root, may not search it
	if os.Geteuid() == 0 {
		// Root searches anything: the lookups are made by a thread whose
		// file system uid is another user's, to which the test's
		// directories are open and the locked one is not.
		lockedMode = 0o700
		for _, d := range []string{filepath.Dir(base), base} {
			require.NoError(t, os.Chmod(d, 0o755))
		}
	}
	require.NoError(t, os.Chmod(locked, lockedMode))
	t.Cleanup(func() { os.Chmod(locked, 0o755) })

	asAnotherUser(t, func() {
		_, err := os.Lstat(hidden)
		require.ErrorIs(t, err, os.ErrPermission, "the locked directory may not be searched")
		p, ok := LookPath("tool", path)
		require.True(t, ok)
		assert.Equal(t, filepath.Join(reachable, "tool"), p, "beneath a directory this user may not search, nothing is found")
		blockedDirs.Lock()
		b := blockedDirs.m[hidden]
		blockedDirs.Unlock()
		assert.Equal(t, locked, b.dir, "kept as blocked by the directory above it")

		skips := blockedSkips.Load()
		p, _ = LookPath("tool", path)
		assert.Equal(t, filepath.Join(reachable, "tool"), p)
		assert.Equal(t, skips+1, blockedSkips.Load(), "passed over, without a stat beneath it")

		// Made searchable (by its owner, on another thread): found first.
		chmodElsewhere(t, locked, 0o755)
		p, _ = LookPath("tool", path)
		assert.Equal(t, filepath.Join(hidden, "tool"), p, "the blocker changed: searched again")
		blockedDirs.Lock()
		_, kept := blockedDirs.m[hidden]
		blockedDirs.Unlock()
		assert.False(t, kept, "no longer kept as blocked")

		// Locked again: passed over again.
		chmodElsewhere(t, locked, lockedMode)
		p, _ = LookPath("tool", path)
		assert.Equal(t, filepath.Join(reachable, "tool"), p)
	})
}

// asAnotherUser runs f on a thread that, when the test runs as root,
// has the file system uid of another user; the thread ends with f.
func asAnotherUser(t *testing.T, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread ends with f
		if os.Geteuid() == 0 {
			unix.Setfsuid(65534)
			unix.Setfsgid(65534)
		}
		f()
	}()
	<-done
}

// chmodElsewhere changes dir's mode from another thread, as its owner.
func chmodElsewhere(t *testing.T, dir string, mode os.FileMode) {
	errs := make(chan error)
	go func() { errs <- os.Chmod(dir, mode) }()
	require.NoError(t, <-errs)
}
