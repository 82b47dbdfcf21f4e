package plan

import "os"

// executableFile reports whether p (links followed) is a regular file:
// Windows has no execute bit.
func executableFile(p string) bool { return fileKind(p) == executable }

// lookFile says what is at p (links followed); of a program, only where
// it is.
func lookFile(p string) (kind, Program) {
	k := fileKind(p)
	if k != executable {
		return k, Program{}
	}
	return k, Program{Path: p}
}

// fileKind says what is at p (links followed).
func fileKind(p string) kind {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return missing
	case fi.Mode().IsRegular():
		return executable
	}
	return other
}
