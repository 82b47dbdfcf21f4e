//go:build !windows

package plan

import "syscall"

// executableFile reports whether p (links followed) is a regular file
// with an execute bit.
func executableFile(p string) bool { return fileKind(p) == executable }

// fileKind says what is at p (links followed), with one stat and none of
// os.Stat's allocations, since every command looks its programs up.
func fileKind(p string) kind {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(p, &st)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EACCES:
			return unreachable
		case err != nil:
			return missing
		case st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Mode&0o111 != 0:
			return executable
		}
		return other
	}
}
