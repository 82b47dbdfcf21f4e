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

// A descriptor inherited without close-on-exec is marked; the streams
// are not.
func TestCloseOnExec(t *testing.T) {
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer f.Close()
	fd := int(f.Fd())
	// As a caller leaves it: open across exec.
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
	require.NoError(t, err)
	require.NoError(t, CloseOnExec())
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.NoError(t, err)
	assert.NotZero(t, flags&unix.FD_CLOEXEC, "descriptor %d", fd)
	for _, stream := range []int{0, 1, 2} {
		flags, err := unix.FcntlInt(uintptr(stream), unix.F_GETFD, 0)
		if err == nil {
			assert.Zero(t, flags&unix.FD_CLOEXEC, "stream %d", stream)
		}
	}
	// And a program started after does not have it.
	out, err := exec.Command("/bin/sh", "-c", "test -e /dev/fd/"+strconv.Itoa(fd)+" && echo open || echo closed").Output()
	require.NoError(t, err)
	assert.Equal(t, "closed\n", string(out))
}
