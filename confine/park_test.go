//go:build linux && amd64

package confine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parkedChildOf asks b to park a child for its next program but git and
// waits until one is parked.
func parkedChildOf(t *testing.T, b *Box) {
	t.Helper()
	b.KeepReady(false)
	require.Eventually(t, func() bool { return b.shared.parked[0].Load() != nil }, 5*time.Second, 5*time.Millisecond, "a child is parked")
}

// As root a server's next program takes a child parked ahead from a
// thread that entered the box (park_linux.go): it is confined as a
// program a thread entered ahead starts — the same mounts, capabilities,
// filter, limits and Landlock's answers, in the box's cgroups, the first
// process of a PID namespace of its own — with an IPC namespace and a
// /dev/shm of its own; a child serves one program, so the next finds
// neither what the one before left.
func TestParkedRootStartConfinesAsAThread(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".envrc"), []byte("keep\n"), 0o644))
	spec := Spec{ReadWrite: []string{dir}, Protected: []Protected{{Path: filepath.Join(dir, ".envrc")}},
		Limits: Limits{OpenFiles: 512, FileSize: 1 << 30, Processes: 200}}
	b := openBox(t, spec)
	if !b.root {
		b.KeepReady(false)
		time.Sleep(50 * time.Millisecond)
		assert.Nil(t, b.shared.parked[0].Load(), "a root's child parked without root")
		return
	}
	require.True(t, parkAhead, "children are parked here")
	require.False(t, b.cgroupsV2(), "this test's machine has cgroup v1 (with v2 a thread enters ahead instead)")
	group, err := b.NewGroup()
	require.NoError(t, err)
	defer group.Close()
	probe := func() string {
		cmd := exec.Command("/bin/sh", "-c", boxProbe+"cat /proc/self/cgroup\necho pid $$\n")
		cmd.Dir = dir
		out, err := runOut(t, b, cmd, StartOptions{Group: group})
		require.NoError(t, err, out)
		l := strings.Split(out, "\n")
		slices.Sort(l)
		return strings.Join(l, "\n")
	}

	parking(t, false)
	used := threadsUsed.Load()
	require.NotNil(t, readyThreadOf(t, b, false))
	fromThread := probe()
	require.Equal(t, used+1, threadsUsed.Load(), "started from the thread entered ahead")
	parking(t, true)

	parked := parkedStarts.Load()
	parkedChildOf(t, b)
	fromParked := probe()
	require.Equal(t, parked+1, parkedStarts.Load(), "started from the parked child")
	assert.Equal(t, fromThread, fromParked, "a program from a thread entered ahead and from a parked child")
	assert.Contains(t, fromParked, "pid 1")
	assert.Contains(t, fromParked, "shm-writable")
	assert.Contains(t, fromParked, "protected-refused")

	ipc := func() string {
		cmd := exec.Command("/bin/sh", "-c", "ls -A /dev/shm; readlink /proc/self/ns/ipc")
		cmd.Dir = dir
		out, err := runOut(t, b, cmd, StartOptions{Group: group})
		require.NoError(t, err, out)
		return strings.TrimSpace(out)
	}
	parkedChildOf(t, b)
	first := ipc()
	parkedChildOf(t, b)
	second := ipc()
	require.Equal(t, parked+3, parkedStarts.Load())
	own, err := os.Readlink("/proc/self/ns/ipc")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(first, "ipc:["), "nothing in /dev/shm, the probe's gone with its program: %q", first)
	assert.NotEqual(t, first, second, "each program an IPC namespace of its own")
	assert.NotEqual(t, own, first)

	// One not started from it (a stream that is not a file) leaves it
	// for the next.
	parkedChildOf(t, b)
	cmd := exec.Command("/bin/echo", "as before")
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout = &out
	p, err := b.StartWith(cmd, nil, StartOptions{Group: group})
	require.NoError(t, err)
	require.NoError(t, p.Wait())
	assert.Equal(t, "as before\n", out.String())
	assert.Equal(t, parked+3, parkedStarts.Load())
	assert.NotNil(t, b.shared.parked[0].Load(), "still parked")
}
