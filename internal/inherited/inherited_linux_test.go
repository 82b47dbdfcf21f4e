package inherited

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Where close_range cannot mark them (before Linux 5.11), each
// descriptor /proc/self/fd lists is marked.
func TestEachFrom3(t *testing.T) {
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer f.Close()
	_, err = unix.FcntlInt(f.Fd(), unix.F_SETFD, 0)
	require.NoError(t, err)
	require.NoError(t, eachFrom3("/proc/self/fd"))
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0)
	require.NoError(t, err)
	assert.NotZero(t, flags&unix.FD_CLOEXEC)
}
