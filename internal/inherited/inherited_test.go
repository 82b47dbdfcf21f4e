//go:build linux || darwin || freebsd

package inherited

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openAcrossExec is a descriptor left open across exec, as a caller
// leaves one.
func openAcrossExec(t *testing.T) int {
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	_, err = unix.FcntlInt(f.Fd(), unix.F_SETFD, 0)
	require.NoError(t, err)
	return int(f.Fd())
}

func closeOnExec(t *testing.T, fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.NoError(t, err)
	return flags&unix.FD_CLOEXEC != 0
}

// A descriptor inherited without close-on-exec is marked; the streams
// are not.
func TestCloseOnExec(t *testing.T) {
	fd := openAcrossExec(t)
	require.NoError(t, CloseOnExec())
	assert.True(t, closeOnExec(t, fd), "descriptor %d", fd)
	for _, stream := range []int{0, 1, 2} {
		if _, err := unix.FcntlInt(uintptr(stream), unix.F_GETFD, 0); err == nil {
			assert.False(t, closeOnExec(t, stream), "stream %d", stream)
		}
	}
	// And a program started after does not have it.
	out, err := exec.Command("/bin/sh", "-c", "test -e /dev/fd/"+strconv.Itoa(fd)+" && echo open || echo closed").Output()
	require.NoError(t, err)
	assert.Equal(t, "closed\n", string(out))
}

// Where close_range cannot mark them (before Linux 5.11), or there is
// none, each descriptor the system's listing names is marked.
func TestEachFrom3(t *testing.T) {
	dir := "/dev/fd"
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		dir = "/proc/self/fd"
	}
	fd := openAcrossExec(t)
	require.NoError(t, eachFrom3(dir))
	assert.True(t, closeOnExec(t, fd))
}
