//go:build !windows

package validators

import (
	"errors"
	"os"
	"syscall"
)

func lstatID(p string) fileID {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.EINVAL
		}
		return fileID{errno: errno}
	}
	return fileID{
		dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), uid: st.Uid, gid: st.Gid,
		size: int64(st.Size), mtime: statMtime(&st), ctime: statCtime(&st),
	}
}

// linkCount is how many names the file has.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
