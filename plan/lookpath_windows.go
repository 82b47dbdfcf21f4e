package plan

import "os"

// executableFile reports whether p (links followed) is a regular file:
// Windows has no execute bit.
func executableFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
