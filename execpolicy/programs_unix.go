//go:build !windows

package execpolicy

import (
	"os"
	"syscall"
)

// notLink reports whether p exists and is not a symbolic link: one
// lstat without os.Lstat's allocations, since every command asks.
func notLink(p string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(p, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFLNK
}

// sameFileAs reports whether fi is the file with device dev and inode
// ino.
func sameFileAs(fi os.FileInfo, dev, ino uint64) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == dev && uint64(st.Ino) == ino
}
