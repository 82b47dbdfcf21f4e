package execpolicy

import "os"

// notLink reports whether p exists and is not a symbolic link.
func notLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink == 0
}
