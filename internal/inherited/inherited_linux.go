package inherited

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseOnExec marks every descriptor from 3 up close-on-exec.
func CloseOnExec() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: one by one.
	return eachFrom3("/proc/self/fd")
}

// eachFrom3 marks close-on-exec each descriptor from 3 up that dir (a
// listing of the process's descriptors) names.
func eachFrom3(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err == nil && fd >= 3 {
			unix.CloseOnExec(fd) // the listing's own descriptor is closed by now: EBADF
		}
	}
	return nil
}
