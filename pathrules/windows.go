// Package pathrules holds the path rules of the systems vtexec does not
// run its tests on — Windows, macOS, WSL — as data and pure functions,
// so that they are tested on any machine: what a path means there, which
// forms are refused before any file is touched, and whether a path lies
// inside a root, component by component, with the system's case rules.
package pathrules

import (
	"strings"
	"sync"
)

// WinForm is the form of a Windows path.
type WinForm int

const (
	// WinRelative is relative to the current directory: a\b.
	WinRelative WinForm = iota
	// WinAbsolute has a drive and a root: C:\a.
	WinAbsolute
	// WinDriveRelative has a drive and no root: C:a, relative to that
	// drive's own current directory, which vtexec does not know.
	WinDriveRelative
	// WinRootRelative has a root and no drive: \a, on the current drive.
	WinRootRelative
	// WinUNC names a share: \\server\share\a.
	WinUNC
	// WinDevice is a device or verbatim path: \\?\C:\a, \\.\COM1,
	// \??\C:\a: no normalisation applies, so no check of the usual form
	// holds for it.
	WinDevice
)

// winSep reports whether c separates components on Windows.
func winSep(c byte) bool { return c == '\\' || c == '/' }

// WindowsForm says which form p has.
func WindowsForm(p string) WinForm {
	switch {
	case len(p) >= 4 && winSep(p[0]) && winSep(p[1]) && (p[2] == '?' || p[2] == '.') && winSep(p[3]):
		return WinDevice
	case len(p) >= 4 && p[0] == '\\' && p[1] == '?' && p[2] == '?' && p[3] == '\\':
		return WinDevice
	case len(p) >= 2 && winSep(p[0]) && winSep(p[1]):
		return WinUNC
	case len(p) >= 2 && isLetter(p[0]) && p[1] == ':':
		if len(p) >= 3 && winSep(p[2]) {
			return WinAbsolute
		}
		return WinDriveRelative
	case len(p) >= 1 && winSep(p[0]):
		return WinRootRelative
	}
	return WinRelative
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// reserved are the device names Windows resolves in any directory, with
// any extension: C:\work\nul.txt is the null device.
var reserved = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true, "CLOCK$": true,
		"COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true, "COM7": true, "COM8": true, "COM9": true,
		"COM¹": true, "COM²": true, "COM³": true,
		"LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true,
		"LPT¹": true, "LPT²": true, "LPT³": true,
	}
})

// WindowsRefusal says why p may not be used as a path on Windows, or ""
// when its form can be checked: forms whose meaning depends on state
// vtexec does not see (a drive's own current directory, the current
// drive), that bypass normalisation (device paths), that name something
// other than a file (reserved device names, alternate data streams), or
// that Windows rewrites before use (trailing dots and spaces, 8.3 short
// names, which need the file system to resolve).
func WindowsRefusal(p string) string {
	if p == "" {
		return "an empty path"
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "a NUL byte"
	}
	switch WindowsForm(p) {
	case WinDriveRelative:
		return "a drive-relative path (C:name) depends on that drive's own current directory"
	case WinRootRelative:
		return "a root-relative path (\\name) depends on the current drive"
	case WinDevice:
		return "a device or verbatim path (\\\\?\\, \\\\.\\, \\??\\) is not normalised"
	}
	rest := p
	if WindowsForm(p) == WinAbsolute {
		rest = p[2:]
	}
	if WindowsForm(p) == WinUNC {
		rest = p[2:]
	}
	for _, c := range strings.FieldsFunc(rest, func(r rune) bool { return r == '\\' || r == '/' }) {
		if why := WindowsComponentRefusal(c); why != "" {
			return why + " (" + c + ")"
		}
	}
	return ""
}

// WindowsComponentRefusal says why one component of a Windows path is
// refused ("" if it is not): an alternate data stream, a character
// Windows does not allow, a reserved device name, a trailing dot or
// space, an 8.3 short name.
func WindowsComponentRefusal(c string) string {
	if c == "." || c == ".." {
		return ""
	}
	if strings.ContainsAny(c, `:*?"<>|`) {
		if strings.Contains(c, ":") {
			return "an alternate data stream (name:stream)"
		}
		return "a character Windows does not allow in a name"
	}
	for i := 0; i < len(c); i++ {
		if c[i] < 32 {
			return "a control character in a name"
		}
	}
	if strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ") {
		return "a name ending in a dot or a space, which Windows strips"
	}
	base := c
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	if reserved()[strings.ToUpper(strings.TrimRight(base, " "))] {
		return "a reserved device name"
	}
	if shortName(c) {
		return "an 8.3 short name (NAME~N), which only the file system can resolve"
	}
	return ""
}

// shortName reports whether c looks like an 8.3 short name: up to six
// characters, a tilde and digits, an extension of up to three.
func shortName(c string) bool {
	i := strings.IndexByte(c, '~')
	if i < 1 || i > 6 {
		return false
	}
	j := i + 1
	for j < len(c) && c[j] >= '0' && c[j] <= '9' {
		j++
	}
	if j == i+1 {
		return false
	}
	return j == len(c) || (c[j] == '.' && len(c)-j-1 <= 3)
}

// WindowsClean returns p with / turned into \, repeated separators, "."
// and ".." resolved lexically, for a path WindowsRefusal accepts in form
// WinAbsolute or WinUNC. ".." never climbs above the drive or share.
func WindowsClean(p string) string {
	form := WindowsForm(p)
	p = strings.ReplaceAll(p, "/", `\`)
	var prefix, rest string
	switch form {
	case WinAbsolute:
		prefix, rest = strings.ToUpper(p[:1])+`:\`, p[3:]
	case WinUNC:
		parts := strings.SplitN(strings.TrimLeft(p, `\`), `\`, 3)
		if len(parts) < 2 {
			return `\\` + strings.Join(parts, `\`)
		}
		prefix = `\\` + parts[0] + `\` + parts[1] + `\`
		if len(parts) == 3 {
			rest = parts[2]
		}
	default:
		rest = p
	}
	var out []string
	for _, c := range strings.Split(rest, `\`) {
		switch c {
		case "", ".":
		case "..":
			if len(out) > 0 && out[len(out)-1] != ".." {
				out = out[:len(out)-1]
			} else if prefix == "" {
				out = append(out, "..")
			}
		default:
			out = append(out, c)
		}
	}
	return prefix + strings.Join(out, `\`)
}

// WindowsWithin reports whether p is root or below it, both absolute
// (drive or UNC) Windows paths: cleaned, compared by whole components,
// without regard to case, as NTFS compares names by default.
func WindowsWithin(root, p string) bool {
	for _, x := range []string{root, p} {
		if f := WindowsForm(x); f != WinAbsolute && f != WinUNC {
			return false
		}
	}
	r := strings.ToUpper(strings.TrimRight(WindowsClean(root), `\`))
	q := strings.ToUpper(WindowsClean(p))
	return q == r || q == r+`\` || strings.HasPrefix(q, r+`\`)
}

// MSYSToWindows turns the path forms of Git Bash, MSYS2 and Cygwin into
// Windows paths, as their runtime does for native programs: /c/Users/x,
// /cygdrive/c/Users/x and C:/Users/x become C:\Users\x. Other POSIX
// paths (/usr/bin, /tmp) name places inside the MSYS installation, which
// vtexec cannot know: ok is false for them.
func MSYSToWindows(p string) (string, bool) {
	rest := p
	switch {
	case strings.HasPrefix(p, "/cygdrive/"):
		rest = p[len("/cygdrive"):]
	case len(p) >= 2 && isLetter(p[0]) && p[1] == ':':
		if WindowsForm(p) != WinAbsolute {
			return "", false
		}
		return WindowsClean(p), true
	}
	if len(rest) >= 2 && rest[0] == '/' && isLetter(rest[1]) && (len(rest) == 2 || rest[2] == '/') {
		drive := strings.ToUpper(rest[1:2])
		tail := ""
		if len(rest) > 3 {
			tail = rest[3:]
		}
		return WindowsClean(drive + `:\` + tail), true
	}
	return "", false
}

// WindowsOperand returns the Windows path a path operand names on
// Windows, or why it cannot be checked (then p is ""). C:/x is C:\x;
// share and relative paths stay as given. Separators must be forward
// slashes: a backslash is refused. A path that starts
// with one / is not a Windows path: in Git Bash, MSYS2 or Cygwin it is
// a drive (/c/x, /cygdrive/c/x), which MSYSArgument converts in the
// arguments before they are checked, or a place inside their
// installation (/usr, /tmp), which vtexec does not know; either way
// here it would be a path on the current drive, which a native program
// reads differently, so it is refused. So are the forms WindowsRefusal
// refuses.
func WindowsOperand(operand string) (p, why string) {
	if strings.Contains(operand, `\`) {
		// vtexec reads commands as bash, where an unquoted \ escapes;
		// and a check that splits names at / alone would read a\..\b
		// as one name.
		return "", "a backslash in a path (" + operand + "): write it with forward slashes (C:/work/a.txt, //server/share/x), as bash and every Windows program read them"
	}
	if strings.HasPrefix(operand, "/") && !strings.HasPrefix(operand, "//") {
		if _, ok := MSYSToWindows(operand); ok {
			return "", "an MSYS drive path (" + operand + ") is converted only as a whole argument or an option's value (--dir=/c/…): write it with its drive (C:/…)"
		}
		return "", "a POSIX path outside the drives (" + operand + ") names a place inside the MSYS or Cygwin installation, which vtexec does not know: give it with its drive (C:/…)"
	}
	if why := WindowsRefusal(operand); why != "" {
		return "", why
	}
	if WindowsForm(operand) == WinAbsolute {
		return WindowsClean(operand), ""
	}
	return operand, ""
}

// MSYSArgument returns arg as MSYS's runtime hands it to a native
// program: a drive path in MSYS's form, whole or as the value of an
// option (--dir=/c/x), becomes the Windows form with forward slashes
// (C:/x), which native programs and MSYS's own both read as that file.
// changed is false when arg has no such path.
func MSYSArgument(arg string) (out string, changed bool) {
	convert := func(s string) (string, bool) {
		if !strings.HasPrefix(s, "/") {
			return s, false
		}
		w, ok := MSYSToWindows(s)
		if !ok {
			return s, false
		}
		w = strings.ReplaceAll(w, `\`, "/")
		if strings.HasSuffix(s, "/") && !strings.HasSuffix(w, "/") {
			w += "/"
		}
		return w, true
	}
	if w, ok := convert(arg); ok {
		return w, true
	}
	if strings.HasPrefix(arg, "-") {
		if name, value, ok := strings.Cut(arg, "="); ok {
			if w, ok := convert(value); ok {
				return name + "=" + w, true
			}
		}
	}
	return arg, false
}
