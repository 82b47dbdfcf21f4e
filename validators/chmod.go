package validators

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vtexec/vtexec/workspace"
)

// chmod changes permission bits of files inside the workspace. Setting
// the set-user-ID, set-group-ID or sticky bits is refused: nothing an
// agent does in a project needs them, and a set-ID file is how a
// privilege is kept for later. With -R, a .git below an operand is
// refused as chmod of the protected entry itself.
var chmodSpec = &Spec{Name: "chmod", Doc: "MODE (no s or t bits) then files to change, each confined and writable; or --reference=FILE",
	Operands: chmodOperands, Flags: []Flag{
		{Short: "c", Long: "changes"}, {Short: "f", Long: "silent"}, {Long: "quiet"},
		{Short: "v", Long: "verbose"}, {Long: "preserve-root"}, {Short: "R", Long: "recursive"},
		{Long: "reference", Arg: ReadPath}, {Long: "help"}, {Long: "version"},
		{Long: "no-preserve-root", Forbid: "removes the guard against changing /"},
	}}

func registerChmod() { registerSpec(chmodSpec) }

func chmodOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil // prints text; GNU chmod changes nothing then
	}
	files := a.Operands
	if !a.Has("reference") {
		if len(files) == 0 {
			return refuse(CodeBadUsage, "chmod MODE FILE...", "chmod: no mode given")
		}
		if err := checkMode(files[0]); err != nil {
			return err
		}
		files = files[1:]
	}
	if len(files) == 0 {
		return refuse(CodeBadUsage, "name the files to change", "chmod: no file given")
	}
	for _, f := range files {
		if err := c.WritePath(f); err != nil {
			return err
		}
		if a.Has("R") {
			real, _ := c.WS.Resolve(f, workspace.Write)
			if err := checkTreeWrites(c, f, real, func(rel string) string { return filepath.Join(real, rel) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkMode refuses modes that set the set-ID or sticky bits, and modes
// chmod would not accept.
func checkMode(mode string) error {
	special := refuse(CodeForbiddenFlag, "use ordinary permission bits, e.g. u+x or 755",
		"chmod %s: setting set-ID or sticky bits is not allowed", mode)
	if n, err := strconv.ParseUint(mode, 8, 32); err == nil {
		if n&0o7000 != 0 {
			return special
		}
		if n > 0o7777 {
			return refuse(CodeBadUsage, "use an octal mode like 644", "chmod: invalid mode %q", mode)
		}
		return nil
	}
	for _, clause := range strings.Split(mode, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		if who == "" || !strings.ContainsAny(who[:1], "+-=") {
			return refuse(CodeBadUsage, "use a mode like u+x, go-w or 644", "chmod: invalid mode %q", mode)
		}
		for _, r := range who {
			switch {
			case r == 's' || r == 't':
				return special
			case strings.ContainsRune("+-=rwxXugo", r):
			default:
				return refuse(CodeBadUsage, "use a mode like u+x, go-w or 644", "chmod: invalid mode %q", mode)
			}
		}
	}
	return nil
}
