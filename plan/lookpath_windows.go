package plan

import "os"

// executableFile reports whether p (links followed) is a regular file:
// Windows has no execute bit.
func executableFile(p string) bool { return fileKind(p) == executable }

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
