package validators

import (
	"errors"
	"os"
	"syscall"
)

// lstatID is the identity a Windows stat gives: no device, inode or
// owner.
func lstatID(p string) fileID {
	fi, err := os.Lstat(p)
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.EINVAL
		}
		return fileID{errno: errno}
	}
	return fileID{mode: uint32(fi.Mode()), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// linkCount: Windows's stat here does not say; one name.
func linkCount(os.FileInfo) uint64 { return 1 }
