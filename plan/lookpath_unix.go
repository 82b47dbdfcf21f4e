//go:build !windows

package plan

import "syscall"

// executableFile reports whether p (links followed) is a regular file
// with an execute bit: os.Stat without its allocations, since every
// command looks its programs up.
func executableFile(p string) bool {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		return err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Mode&0o111 != 0
	}
}
