package execpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/validators"
)

// canonicalProgram is name without a platform or version suffix, so that
// rules about python, perl or bash also hold for python3.11,
// perl5.36-x86_64-linux-gnu and bash5.2.
func canonicalProgram(name string) string {
	name = trimPlatformSuffix(name)
	if base, ok := cutVersionSuffix(name); ok && len(base) >= 2 {
		name = base
	}
	if a := validators.AliasOf(name); a != "" {
		return a
	}
	return name
}

// trimPlatformSuffix removes a GNU triplet from the end of name
// (perl5.36-x86_64-linux-gnu): the first "-ARCH-linux-gnu" followed by
// nothing but lower-case letters. It does what the regular expression
//
//	-(x86_64|i[3-6]86|aarch64|arm[a-z0-9]*|riscv64|powerpc64le|ppc64el|s390x|mips[a-z0-9]*)-linux-gnu[a-z]*$
//
// replaced with "" did, without compiling one at start-up.
func trimPlatformSuffix(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] != '-' {
			continue
		}
		j := strings.IndexByte(name[i+1:], '-')
		if j < 0 {
			return name
		}
		j += i + 1
		rest, ok := strings.CutPrefix(name[j:], "-linux-gnu")
		if ok && onlyLower(rest) && gnuArch(name[i+1:j]) {
			return name[:i]
		}
	}
	return name
}

// gnuArch reports whether s is one of the architectures trimPlatformSuffix
// knows.
func gnuArch(s string) bool {
	switch s {
	case "x86_64", "aarch64", "riscv64", "powerpc64le", "ppc64el", "s390x":
		return true
	}
	if len(s) == 4 && s[0] == 'i' && s[1] >= '3' && s[1] <= '6' && s[2:] == "86" {
		return true
	}
	for _, p := range []string{"arm", "mips"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return onlyLowerOrDigits(rest)
		}
	}
	return false
}

// cutVersionSuffix splits a version off the end of name (python3.11,
// gcc-12): the base ends in a lower-case letter, the version is an
// optional '-' or '_', digits, and any number of ".digits". It does what
// FindStringSubmatch of ^(.*[a-z])[-_]?[0-9]+(\.[0-9]+)*$ did for the
// first group.
func cutVersionSuffix(name string) (string, bool) {
	k := strings.LastIndexFunc(name, func(r rune) bool { return r >= 'a' && r <= 'z' }) + 1
	if k == 0 || strings.IndexByte(name[:k], '\n') >= 0 {
		return "", false
	}
	v := name[k:]
	if v != "" && (v[0] == '-' || v[0] == '_') {
		v = v[1:]
	}
	for {
		n := len(v) - len(strings.TrimLeft(v, "0123456789"))
		if n == 0 {
			return "", false
		}
		v = v[n:]
		if v == "" {
			return name[:k], true
		}
		if v[0] != '.' {
			return "", false
		}
		v = v[1:]
	}
}

func onlyLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func onlyLowerOrDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < 'a' || s[i] > 'z') && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// programNames are the names a program goes by: as typed, without its
// version, and those of the file it runs (prog, links followed), so that
// a link named after something harmless still counts as what it runs.
func programNames(name string, prog plan.Program) []string {
	names := []string{name}
	add := func(n string) {
		for _, m := range names {
			if m == n {
				return
			}
		}
		names = append(names, n)
	}
	add(canonicalProgram(name))
	if win := windowsName(name); win != "" {
		add(win)
		add(canonicalProgram(win))
	}
	if real, ok := realName(prog); ok {
		add(real)
		add(canonicalProgram(real))
	}
	return names
}

// windowsName is name as Windows finds a program by it: without case
// and without the extension it may be typed with (PowerShell.exe,
// CMD.EXE); "" when it is that already.
func windowsName(name string) string {
	lower := strings.ToLower(name)
	for _, ext := range []string{".exe", ".com", ".bat", ".cmd", ".ps1"} {
		if base, ok := strings.CutSuffix(lower, ext); ok && base != "" {
			return base
		}
	}
	if lower != name {
		return lower
	}
	return ""
}

// realName is the name of the file prog runs: filepath.Base of
// filepath.EvalSymlinks(prog.Path). When prog is not itself a link, that
// is its own name, whatever links lead to its directory: what the lookup
// saw (or one lstat) does instead of a look at every component.
func realName(prog plan.Program) (string, bool) {
	if prog.Path == "" {
		return "", false
	}
	if prog.Seen && !prog.Link || !prog.Seen && notLink(prog.Path) {
		return filepath.Base(prog.Path), true
	}
	real, err := filepath.EvalSymlinks(prog.Path)
	if err != nil {
		return "", false
	}
	return filepath.Base(real), true
}

// shellScript reports whether a plan is exactly one `bash -c SCRIPT` (or
// sh, with -l/--login allowed), and returns SCRIPT. Such a command is
// checked and run as SCRIPT itself, with no shell.
func shellScript(p *plan.Plan) (string, bool) {
	cmds := p.Commands()
	if len(cmds) != 1 || cmds[0].Program == "" || len(cmds[0].Redirects) > 0 {
		return "", false
	}
	script := validators.ProfileOf(filepath.Base(cmds[0].Argv[0])).ShellScript
	if script == nil {
		return "", false
	}
	return script(cmds[0].Argv)
}

// selfFiles are vtexec's programs: the running one, and vtexec and
// vtexec-serve beside it (the one installation's two programs).
var selfFiles = sync.OnceValue(func() []os.FileInfo {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	var files []os.FileInfo
	if fi, err := os.Stat(exe); err == nil {
		files = append(files, fi)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		for _, name := range []string{"vtexec", "vtexec-serve", "vtexec.exe", "vtexec-serve.exe"} {
			if fi, err := os.Stat(filepath.Join(filepath.Dir(real), name)); err == nil {
				files = append(files, fi)
			}
		}
	}
	return files
})

// isSelf reports whether prog is one of vtexec's programs, under any
// name or path (a copy is another file, and asks or is refused as one).
func isSelf(prog plan.Program) bool {
	self := selfFiles()
	if len(self) == 0 {
		return false
	}
	if prog.Seen {
		// The file the lookup saw, links followed.
		for _, s := range self {
			if sameFileAs(s, prog.Dev, prog.Ino) {
				return true
			}
		}
		return false
	}
	fi, err := os.Stat(prog.Path)
	if err != nil {
		return false
	}
	for _, s := range self {
		if os.SameFile(fi, s) {
			return true
		}
	}
	return false
}
