package workspace

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/vtexec/vtexec/pathrules"
)

// caseless says that the platform's file systems compare names without
// regard to case by default (APFS on macOS, NTFS on Windows): a path
// spelled in another case is the same file, so a root, a protected place
// or a link's target is compared with it that way too. It errs towards
// inside-equals-inside on a volume made case-sensitive. Linux compares
// names exactly.
var caseless = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// windowsNames says that names are Windows' (NTFS): a component Windows
// would read as something else than the file named (a device, a data
// stream, a short name, a name it strips) is refused.
var windowsNames = runtime.GOOS == "windows"

// nameRefusal says why a component of a path is refused here, or "".
func nameRefusal(path string) string {
	if !windowsNames {
		return ""
	}
	for _, c := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' }) {
		if why := pathrules.WindowsComponentRefusal(c); why != "" {
			return fmt.Sprintf("on Windows the name %q cannot be checked: %s", c, why)
		}
	}
	return ""
}

// sameName reports whether two path components name the same entry.
func sameName(a, b string) bool {
	if caseless {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// relTo returns real relative to root, by whole components ("" for the
// root itself), and whether real is root or below it.
func relTo(root, real string) (string, bool) {
	rp, pp := splitPath(root), splitPath(real)
	if len(pp) < len(rp) {
		return "", false
	}
	for i := range rp {
		if !sameName(rp[i], pp[i]) {
			return "", false
		}
	}
	return strings.Join(pp[len(rp):], "/"), true
}
