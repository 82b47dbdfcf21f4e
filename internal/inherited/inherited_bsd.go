//go:build darwin || freebsd

package inherited

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseOnExec marks every descriptor from 3 up close-on-exec.
func CloseOnExec() error {
	f, err := os.Open("/dev/fd")
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
			unix.CloseOnExec(fd)
		}
	}
	return nil
}
