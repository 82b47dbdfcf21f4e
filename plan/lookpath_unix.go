//go:build !windows

package plan

import "syscall"

// executableFile reports whether p (links followed) is a regular file
// with an execute bit.
func executableFile(p string) bool { return fileKind(p) == executable }

// fileKind says what is at p (links followed).
func fileKind(p string) kind {
	k, _ := lookFile(p)
	return k
}

// lookFile says what is at p (links followed) and, for a program, what
// the look saw of it: an lstat, and a stat only when p is a link, with
// none of os.Stat's allocations, since every command looks its programs
// up.
func lookFile(p string) (kind, Program) {
	var st syscall.Stat_t
	link := false
	for {
		var err error
		if link {
			err = syscall.Stat(p, &st)
		} else {
			err = syscall.Lstat(p, &st)
		}
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EACCES:
			return unreachable, Program{}
		case err != nil:
			return missing, Program{}
		case st.Mode&syscall.S_IFMT == syscall.S_IFLNK && !link:
			link = true
			continue
		case st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Mode&0o111 != 0:
			return executable, Program{Path: p, Seen: true, Link: link, Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
		}
		return other, Program{}
	}
}
