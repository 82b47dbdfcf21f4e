package plan

import (
	"path/filepath"
	"syscall"
)

// LookPath finds the program name on path (a colon-separated list of
// directories) as vtexec runs programs: the first regular file with an
// execute bit, links followed. The checker finds programs with it, and
// the runner answers command -v with it, so both agree.
func LookPath(name, path string) (string, bool) {
	if name == "" || name == "." || name == ".." {
		return "", false
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if executableFile(p) {
			return p, true
		}
	}
	return "", false
}

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
