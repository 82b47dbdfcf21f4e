//go:build linux || darwin || freebsd

package fsutil

import "golang.org/x/sys/unix"

// Full reports whether the file system holding path has no block left
// that this process may use (root may use blocks kept for it).
func Full(path string) bool {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return false
	}
	if unix.Geteuid() == 0 {
		return uint64(st.Bfree) == 0
	}
	return uint64(st.Bavail) == 0
}
