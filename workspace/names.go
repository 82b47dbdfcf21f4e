package workspace

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/pathrules"
)

// caseless says that the platform's file systems compare names without
// regard to case by default (APFS on macOS, NTFS on Windows): a path
// spelled in another case is the same file, so a root, a protected place
// or a link's target is compared with it that way too. It errs towards
// inside-equals-inside on a volume made case-sensitive. Linux compares
// names exactly.
var caseless = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// onWindowsDrive reports whether a Linux path is on a Windows drive as
// WSL mounts them (/mnt/c/…): there Windows' rules apply — names without
// case, and the names Windows reads as something else than the file.
var onWindowsDrive = func(p string) bool {
	// Only paths under /mnt can be on a drive: the kernel's release
	// string is read for no other.
	if runtime.GOOS != "linux" || !strings.HasPrefix(p, "/mnt/") || !onWSL() {
		return false
	}
	_, ok := pathrules.WSLDrive(p)
	return ok
}

// onWSL reports whether the kernel is WSL's, from its own release string.
var onWSL = sync.OnceValue(func() bool {
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	return err == nil && pathrules.IsWSL(string(release))
})

// nameRefusal says why a component of the absolute Linux path full is
// refused, or "": on a Windows drive under WSL, the names Windows reads
// as something else than the file (a device, a data stream, a short
// name, a name it strips). On Windows itself pathrules.WindowsOperand
// refuses them.
func nameRefusal(full string) string {
	if !onWindowsDrive(full) {
		return ""
	}
	for _, c := range strings.Split(full, "/") {
		if why := pathrules.WindowsComponentRefusal(c); why != "" {
			return fmt.Sprintf("on Windows the name %q cannot be checked: %s", c, why)
		}
	}
	return ""
}

// relTo returns real relative to root, by whole components ("" for the
// root itself), and whether real is root or below it. Names are compared
// without case where the platform, or the Windows drive root is on,
// compares them so.
func relTo(root, real string) (string, bool) {
	return pathrules.Within(slashed(root), slashed(real), caseless || onWindowsDrive(root) || onWindowsDrive(real))
}
