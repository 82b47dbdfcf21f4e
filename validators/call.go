package validators

import (
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/gitrepo"
	"github.com/vtexec/vtexec/workspace"
)

// Call is one command to check: its argv (argv[0] the program name as
// typed) and the workspace whose current directory is the command's.
type Call struct {
	Argv []string
	WS   *workspace.Workspace
	// Git answers about repositories; nil is gitrepo.Shared().
	Git gitrepo.Inspector
}

// Program is the program name as typed.
func (c *Call) Program() string { return c.Argv[0] }

// ReadPath checks that p names something inside the workspace.
// "-" (standard input) is accepted when stdin is true, and /dev/null,
// which reads as empty, always (diff --no-index /dev/null new.txt).
func (c *Call) ReadPath(p string, stdin bool) error {
	if stdin && p == "-" || p == "/dev/null" {
		return nil
	}
	if _, err := c.WS.Resolve(p, workspace.Read); err != nil {
		return pathFinding(c.Program(), p, err)
	}
	return nil
}

// WritePath checks that p may be written: inside and not protected.
func (c *Call) WritePath(p string) error {
	if _, err := c.WS.Resolve(p, workspace.Write); err != nil {
		return pathFinding(c.Program(), p, err)
	}
	return nil
}

func (c *Call) checkValue(u FlagUse) error {
	switch u.Flag.Arg {
	case Number:
		if !isNumber(u.Value) {
			return refuse(CodeBadUsage, "give a number, e.g. "+u.As+" 10", "%s %s: %q is not a number", c.Program(), u.As, u.Value)
		}
	case NamePart:
		if u.Value == "" || u.Value == "." || u.Value == ".." || strings.ContainsAny(u.Value, "/\x00") {
			return refuse(CodeForbiddenFlag, "use a plain word without / for "+u.As,
				"%s %s %q: the program builds a file name from it, which a \"/\" or \"..\" would move elsewhere", c.Program(), u.As, u.Value)
		}
	case ReadPath, WritePath:
		// "-f=PATH": GNU getopt names the file "=PATH", other parsers
		// (ripgrep's) drop the "=": refused rather than guessed.
		if !strings.HasPrefix(u.As, "--") && strings.HasPrefix(u.Value, "=") {
			return refuse(CodeBadUsage, "write "+u.As+" PATH, without =",
				"%s %s%s: whether the = belongs to the path depends on the program's option parser", c.Program(), u.As, u.Value)
		}
		if u.Flag.Arg == ReadPath {
			return c.ReadPath(u.Value, true)
		}
		return c.WritePath(u.Value)
	}
	return nil
}

// ReadPaths is an Operands checker for programs whose operands are all
// files or directories to read; "-" means standard input.
func ReadPaths(c *Call, a *Args) error {
	for _, op := range a.Operands {
		if err := c.ReadPath(op, true); err != nil {
			return err
		}
	}
	return nil
}

// SomeReadPaths is ReadPaths with at least one path: without one the
// program reads the system's mount table, which the kernel box hides.
func SomeReadPaths(c *Call, a *Args) error {
	if len(a.Operands) == 0 && !a.Has("help") && !a.Has("version") {
		name := filepath.Base(c.Argv[0])
		return refuse(CodeBadUsage, "name a path in the workspace, e.g. "+name+" -h .", "%s needs a path: without one it lists every mounted file system, which commands do not see", name)
	}
	return ReadPaths(c, a)
}

// Texts is an Operands checker for operands that are never opened.
func Texts(*Call, *Args) error { return nil }

// Durations is an Operands checker for sleep's NUMBER[smhd] operands.
func Durations(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil
	}
	if len(a.Operands) == 0 {
		return refuse(CodeBadUsage, "give a duration, e.g. "+c.Program()+" 1", "%s: missing duration", c.Program())
	}
	for _, op := range a.Operands {
		n := strings.TrimRight(op, "smhd")
		if len(op)-len(n) > 1 || !isDecimal(n) {
			return refuse(CodeBadUsage, "give a duration like 1, 0.5 or 2s", "%s: %q is not a duration", c.Program(), op)
		}
	}
	return nil
}

// isDecimal reports whether s is a plain decimal number: digits with at
// most one point.
func isDecimal(s string) bool {
	digits, point := 0, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' && !point:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}
