//go:build linux

package confine

import (
	"os"

	"golang.org/x/sys/unix"
)

// untilExited returns once the process pid, a child not yet waited for,
// has exited; where there is no pidfd it returns at once. The calling
// goroutine waits in the runtime's poller, not in a system call: a
// goroutine blocked in wait4 keeps its P until the runtime's monitor
// takes it back, and whatever it has just woken (the caller told that
// the program started) waits there meanwhile, for as long as the
// program runs.
func untilExited(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Read(func(fd uintptr) bool {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
		return err != nil || n > 0 // an error: Wait blocks instead
	})
}
