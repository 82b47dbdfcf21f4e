package inherited

import "golang.org/x/sys/unix"

// CloseOnExec marks every descriptor from 3 up close-on-exec.
func CloseOnExec() error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	// Before Linux 5.11: one by one.
	return eachFrom3("/proc/self/fd")
}
