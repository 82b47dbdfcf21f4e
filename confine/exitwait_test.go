//go:build linux

package confine

import (
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// exitedNotReaped reports whether the child pid has exited, leaving it
// to be waited for.
func exitedNotReaped(t *testing.T, pid int) bool {
	var info unix.Siginfo
	require.NoError(t, unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil))
	return info.Signo != 0
}

func TestUntilExitedReturnsOnceTheProgramHasExited(t *testing.T) {
	cmd := exec.Command("sleep", "0.3")
	require.NoError(t, cmd.Start())
	start := time.Now()
	untilExited(cmd.Process.Pid)
	require.True(t, exitedNotReaped(t, cmd.Process.Pid), "returned while the program ran")
	require.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond)
	require.NoError(t, cmd.Wait(), "the program is still there to be waited for")

	// One that has exited already: at once.
	cmd = exec.Command("true")
	require.NoError(t, cmd.Start())
	for !exitedNotReaped(t, cmd.Process.Pid) {
		time.Sleep(time.Millisecond)
	}
	untilExited(cmd.Process.Pid)
	require.NoError(t, cmd.Wait())
}
