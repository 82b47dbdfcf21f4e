package pathrules

import (
	"path"
	"strings"
)

// darwinLinks are the links at the root of macOS that lead into
// /private: /var/folders/… and /private/var/folders/… are one place.
var darwinLinks = map[string]string{"/var": "/private/var", "/tmp": "/private/tmp", "/etc": "/private/etc"}

// DarwinCanonical returns the absolute macOS path p cleaned, with the
// root's links into /private followed (their names in any case).
func DarwinCanonical(p string) string {
	p = path.Clean(p)
	lower := strings.ToLower(p) // /VAR is /var on a volume that ignores case
	for link, target := range darwinLinks {
		if lower == link || strings.HasPrefix(lower, link+"/") {
			return target + p[len(link):]
		}
	}
	return p
}

// DarwinWithin reports whether p is root or below it on macOS: both
// canonical, compared by whole components without regard to case, as
// APFS compares names by default (a case-sensitive volume is the
// exception, and then this errs on the side of inside-equals-inside).
func DarwinWithin(root, p string) bool {
	if !path.IsAbs(root) || !path.IsAbs(p) {
		return false
	}
	_, ok := Within(DarwinCanonical(root), DarwinCanonical(p), true)
	return ok
}

// DarwinOtherHome reports whether p lies in the home of another user
// than user: /Users/NAME/… for a NAME that is not user (nor Shared).
func DarwinOtherHome(p, user string) bool {
	p = DarwinCanonical(p)
	rest, ok := strings.CutPrefix(p, "/Users/")
	if !ok {
		return false
	}
	name, _, _ := strings.Cut(rest, "/")
	return name != "" && !strings.EqualFold(name, user) && !strings.EqualFold(name, "Shared")
}

// DarwinTempDir is the per-user temporary directory of macOS, from
// $TMPDIR (/var/folders/xx/yyyy/T/), canonical; "" when tmpdir is not
// one.
func DarwinTempDir(tmpdir string) string {
	c := DarwinCanonical(tmpdir)
	if !strings.HasPrefix(c, "/private/var/folders/") {
		return ""
	}
	return c
}
