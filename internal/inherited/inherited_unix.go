//go:build linux || darwin || freebsd

package inherited

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// eachFrom3 marks close-on-exec each descriptor from 3 up that dir (a
// listing of the process's descriptors: /proc/self/fd, /dev/fd) names.
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
