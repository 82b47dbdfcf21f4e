package workspace

import (
	"os"
	"path"
	"runtime"
	"strings"

	"github.com/vtexec/vtexec/pathrules"
)

// winPaths says that paths are spelled as Windows spells them: a drive
// (C:\) or a share (\\server\share\) to start from, either separator,
// and ".." taken by the text before any link is followed, as Windows
// normalises a path before it opens it. Elsewhere a path starts at /
// and ".." is taken where the walk has got to, as the kernel does.
var winPaths = runtime.GOOS == "windows"

// lstat and readlink read the file system; tests give them a tree
// spelled as another platform spells it.
var (
	lstat    = os.Lstat
	readlink = os.Readlink
)

func isSep(c byte) bool { return c == '/' || (winPaths && c == '\\') }

// sep is the separator the walk joins with.
func sep() string {
	if winPaths {
		return `\`
	}
	return "/"
}

// isAbs reports whether p names a place without the current directory.
func isAbs(p string) bool {
	if winPaths {
		f := pathrules.WindowsForm(p)
		return f == pathrules.WinAbsolute || f == pathrules.WinUNC
	}
	return strings.HasPrefix(p, "/")
}

// startOf splits an absolute path into where a walk of it starts (/, a
// drive's root, a share's root) and the components after that.
func startOf(p string) (string, []string) {
	if !winPaths {
		return "/", splitPath(p)
	}
	switch pathrules.WindowsForm(p) {
	case pathrules.WinAbsolute:
		return strings.ToUpper(p[:1]) + `:\`, splitPath(p[2:])
	case pathrules.WinUNC:
		parts := splitPath(p)
		if len(parts) < 2 {
			return p, nil
		}
		return `\\` + parts[0] + `\` + parts[1] + `\`, parts[2:]
	}
	return "", splitPath(p)
}

// isStart reports whether the clean absolute p is where walks start: /,
// or a drive's or share's root.
func isStart(p string) bool {
	_, comps := startOf(p)
	return len(comps) == 0
}

// joinName returns the clean directory dir with name, one component,
// below it.
func joinName(dir, name string) string {
	if strings.HasSuffix(dir, sep()) {
		return dir + name
	}
	return dir + sep() + name
}

// parentOf returns the directory holding the clean absolute p; a start
// is its own.
func parentOf(p string) string {
	if !winPaths {
		return path.Dir(p)
	}
	start, comps := startOf(p)
	if len(comps) == 0 {
		return start
	}
	return start + strings.Join(comps[:len(comps)-1], `\`)
}

// slashed returns p with Windows' separators as /, for comparing by
// components.
func slashed(p string) string {
	if winPaths {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// linkTarget says where a walk goes on from a link in dir whose text is
// target: from a new start (an absolute target), or on from dir. ok is
// false for a target whose meaning the walk cannot know.
func linkTarget(dir, target string) (from string, pending []string, ok bool) {
	if !winPaths {
		if strings.HasPrefix(target, "/") {
			return "/", splitPath(target), true
		}
		return dir, splitPath(target), true
	}
	// A junction's target reads as an NT path (\??\C:\x) from some
	// versions of Windows' API.
	if rest, found := strings.CutPrefix(target, `\??\`); found && pathrules.WindowsForm(rest) == pathrules.WinAbsolute {
		target = rest
	}
	switch pathrules.WindowsForm(target) {
	case pathrules.WinAbsolute, pathrules.WinUNC:
		start, comps := startOf(pathrules.WindowsClean(target))
		return start, comps, true
	case pathrules.WinRootRelative:
		start, _ := startOf(dir)
		return start, splitPath(target), true
	case pathrules.WinRelative:
		return dir, splitPath(target), true
	}
	return "", nil, false
}
