package confine

import (
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/vtexec/vtexec/pathrules"
)

// SeatbeltLauncher is macOS's program that starts a program under a
// Seatbelt profile.
const SeatbeltLauncher = "/usr/bin/sandbox-exec"

// seatbeltApplied is what a box's report says of an applied profile.
const seatbeltApplied = "applied as the user's policy opts in (seatbelt = true); untested: no test of vtexec has run it on macOS"

// seatbeltWrap has cmd start its program under launcher with profile
// (launcher -p PROFILE PROGRAM ARGS…): the program named by its absolute
// path, which the launcher takes for no option of its own; arguments,
// environment, directory and streams as they were. The program's argv[0]
// becomes its path.
func seatbeltWrap(cmd *exec.Cmd, launcher, profile string) error {
	if !filepath.IsAbs(cmd.Path) || len(cmd.Args) == 0 {
		return errors.New("seatbelt: the program must be named by an absolute path")
	}
	cmd.Args = append([]string{launcher, "-p", profile, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = launcher
	return nil
}

// seatbeltSystemRead are the places every macOS program reads and runs
// from: the system, the linker's caches, the developer tools, the
// package managers' trees, the devices every program opens.
var seatbeltSystemRead = []string{
	"/System", "/usr", "/bin", "/sbin", "/Library/Apple", "/Library/Developer/CommandLineTools",
	"/Applications/Xcode.app", "/opt/homebrew", "/usr/local", "/private/etc", "/private/var/db/dyld",
	"/private/var/db/timezone", "/dev",
}

// SeatbeltProfile is the Seatbelt (sandbox-exec) profile of the box
// spec describes, from the same description as Landlock's: read the
// system and the spec's places, write only ReadWrite, never a protected
// name nor a git directory (git may write one but its hooks and config,
// as Landlock lets it when gitWrites), the network only when
// spec.Network. Seatbelt matches the paths the kernel resolves, so each
// is written canonical: /var/folders/… (where $TMPDIR, and so the run's
// own directories, are) as /private/var/folders/… (pathrules.DarwinCanonical).
//
// Nothing on the machines vtexec is tested on can run it; its text is
// tested against a golden file.
func SeatbeltProfile(spec Spec, gitWrites bool) string {
	spec = darwinCanonicalSpec(spec)
	var b strings.Builder
	b.WriteString(";; vtexec box (Seatbelt): generated from the box's description\n")
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-fork)\n(allow process-exec)\n(allow signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow mach-lookup (global-name \"com.apple.system.logger\"))\n")
	b.WriteString("(allow file-read-metadata)\n")

	b.WriteString("\n;; read and run: the system, then the box's own places\n(allow file-read* process-exec\n")
	for _, p := range seatbeltSystemRead {
		b.WriteString("  (subpath " + sbplString(p) + ")\n")
	}
	for _, p := range sortedCopy(append(append([]string{}, spec.ReadOnly...), spec.ReadWrite...)) {
		b.WriteString("  (subpath " + sbplString(p) + ")\n")
	}
	b.WriteString(")\n")

	b.WriteString("\n;; devices every program writes\n(allow file-write-data\n")
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		b.WriteString("  (literal " + sbplString(d) + ")\n")
	}
	b.WriteString(")\n")

	// Writes: inside a read-write place, and not under a protected name
	// or a git directory (but git's own writes there, when granted).
	var never []string
	for _, p := range spec.Protected {
		never = append(never, p.Path)
	}
	var gitOnly []string
	for _, g := range spec.GitDirs {
		if gitWrites {
			never = append(never, g+"/hooks", g+"/config")
			gitOnly = append(gitOnly, g)
		} else {
			never = append(never, g)
		}
	}
	never = sortedCopy(never)
	b.WriteString("\n;; write: the workspace and the run's own HOME and TMPDIR, never a protected name\n")
	b.WriteString("(allow file-write*\n  (require-all\n    (require-any\n")
	for _, p := range sortedCopy(spec.ReadWrite) {
		b.WriteString("      (subpath " + sbplString(p) + ")\n")
	}
	b.WriteString("    )\n")
	for _, p := range never {
		b.WriteString("    (require-not (subpath " + sbplString(p) + "))\n")
	}
	for _, g := range gitOnly {
		b.WriteString("    (require-not (subpath " + sbplString(g) + "))\n")
	}
	b.WriteString("  )\n)\n")
	if len(gitOnly) > 0 {
		b.WriteString("\n;; git, granted a history write: its git directory but hooks and config\n(allow file-write*\n  (require-all\n    (require-any\n")
		for _, g := range gitOnly {
			b.WriteString("      (subpath " + sbplString(g) + ")\n")
		}
		b.WriteString("    )\n")
		for _, p := range never {
			b.WriteString("    (require-not (subpath " + sbplString(p) + "))\n")
		}
		b.WriteString("  )\n)\n")
	}

	b.WriteString("\n;; network\n")
	if spec.Network {
		b.WriteString("(allow network*)\n(allow system-socket)\n(allow mach-lookup (global-name \"com.apple.dnssd.service\"))\n")
	} else {
		b.WriteString(";; none: no socket reaches another host or the machine's services\n")
	}
	return b.String()
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string { return strconv.Quote(s) }

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// darwinCanonicalSpec is spec with every path canonical on macOS.
func darwinCanonicalSpec(spec Spec) Spec {
	canon := func(l []string) []string {
		out := make([]string, len(l))
		for i, p := range l {
			out[i] = pathrules.DarwinCanonical(p)
		}
		return out
	}
	spec.ReadWrite, spec.ReadOnly, spec.GitDirs = canon(spec.ReadWrite), canon(spec.ReadOnly), canon(spec.GitDirs)
	protected := make([]Protected, len(spec.Protected))
	for i, p := range spec.Protected {
		protected[i] = Protected{Path: pathrules.DarwinCanonical(p.Path), Dir: p.Dir}
	}
	spec.Protected = protected
	return spec
}
