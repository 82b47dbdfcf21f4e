package runbox

import "golang.org/x/sys/unix"

// memoryFS is /dev/shm where it is a tmpfs that may hold programs
// (not noexec: go test runs the binaries it builds in TMPDIR).
func memoryFS() (string, bool) {
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) != nil || st.Type != unix.TMPFS_MAGIC {
		return "", false
	}
	if st.Flags&(unix.ST_NOEXEC|unix.ST_RDONLY) != 0 {
		return "", false
	}
	return "/dev/shm", true
}
