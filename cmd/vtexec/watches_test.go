//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/dirwatch"
)

// A process that watched directories hands its inotify instance, as it
// exits, to a cat that holds nothing else — no stream of the caller's,
// which would keep the caller waiting, no environment — and that ends
// once this process's end of its pipe is closed (by the kernel, at the
// exit).
func TestWatchesHandedOffAtExit(t *testing.T) {
	w := dirwatch.New()
	require.NotNil(t, w)
	require.True(t, w.Add(t.TempDir()))
	defer w.Close()

	holder := handOffWatches()
	require.NotNil(t, holder, "a process that watched hands its instance off")
	pid := strconv.Itoa(holder.Process.Pid)
	// Read once cat has started: while its loader runs, it holds the
	// libraries it opens.
	var fds map[string]string
	for range 200 {
		fds = map[string]string{}
		entries, err := os.ReadDir(filepath.Join("/proc", pid, "fd"))
		require.NoError(t, err)
		for _, e := range entries {
			target, _ := os.Readlink(filepath.Join("/proc", pid, "fd", e.Name()))
			fds[e.Name()] = target
		}
		if len(fds) == 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, "anon_inode:inotify", fds["3"], "the instance")
	assert.Contains(t, fds["0"], "pipe:", "reads the pipe")
	assert.Equal(t, "/dev/null", fds["1"], "not the caller's stdout")
	assert.Equal(t, "/dev/null", fds["2"], "not the caller's stderr")
	assert.Len(t, fds, 4, "nothing else: %v", fds)
	environ, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
	require.NoError(t, err)
	assert.Empty(t, environ)

	require.NoError(t, heldUntilExit.Close()) // as the kernel does at exit
	heldUntilExit = nil
	state, err := holder.Process.Wait()
	require.NoError(t, err)
	assert.True(t, state.Success(), "the holder ends when the pipe closes")
}
