package pathrules

import (
	"path"
	"strings"
)

// IsWSL reports whether osrelease (the kernel's own release string,
// /proc/sys/kernel/osrelease) is a Windows Subsystem for Linux kernel's.
func IsWSL(osrelease string) bool {
	r := strings.ToLower(osrelease)
	return strings.Contains(r, "microsoft") || strings.Contains(r, "wsl")
}

// WSLDrive reports whether the Linux path p is on a Windows drive as WSL
// mounts them (/mnt/c/…), and returns that path as Windows names it
// (C:\…): a place where Windows' rules (case, reserved names, streams)
// apply, and which Windows programs reach outside any Linux box.
func WSLDrive(p string) (string, bool) {
	p = path.Clean(p)
	rest, ok := strings.CutPrefix(p, "/mnt/")
	if !ok || len(rest) == 0 || !isLetter(rest[0]) || (len(rest) > 1 && rest[1] != '/') {
		return "", false
	}
	tail := ""
	if len(rest) > 2 {
		tail = rest[2:]
	}
	return WindowsClean(strings.ToUpper(rest[:1]) + `:\` + tail), true
}

// WSLShare reports whether the Windows path p names a WSL
// distribution's files (\\wsl$\Distro\… or \\wsl.localhost\Distro\…),
// and returns the distribution and the Linux path in it.
func WSLShare(p string) (distro, linux string, ok bool) {
	if WindowsForm(p) != WinUNC {
		return "", "", false
	}
	parts := strings.SplitN(strings.TrimLeft(strings.ReplaceAll(p, "/", `\`), `\`), `\`, 3)
	if len(parts) < 2 || parts[1] == "" {
		return "", "", false
	}
	host := strings.ToLower(parts[0])
	if host != "wsl$" && host != "wsl.localhost" {
		return "", "", false
	}
	linux = "/"
	if len(parts) == 3 {
		linux = path.Clean("/" + strings.ReplaceAll(parts[2], `\`, "/"))
	}
	return parts[1], linux, true
}
