//go:build !windows

package execpolicy

import "syscall"

// notLink reports whether p exists and is not a symbolic link: one
// lstat without os.Lstat's allocations, since every command asks.
func notLink(p string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(p, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFLNK
}
