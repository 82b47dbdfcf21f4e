package validators

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/workspace"
)

// mv takes each source away from where it is and writes it at the
// destination, so both ends are writes. A source is checked where it sits
// (like rm: moving a symbolic link moves the link, not its target), so
// .git/config cannot be moved away and the workspace root cannot be moved
// at all. The destination is checked as a write, and when it is a directory
// so is the entry each source lands on, as cp does. A backup of a replaced
// file is written next to it under the name DEST+SUFFIX: that name is
// checked too, and a suffix holding a "/" is refused.
var mvSpec = &Spec{Name: "mv",
	Doc: "SOURCE... DEST: each source must sit in a writable place (a symbolic link is moved, not its target), " +
		"the destination, where each source lands and any backup are written; all confined",
	Operands: mvOperands, Flags: []Flag{
		{Long: "backup", Arg: Text, Optional: true}, {Short: "b"},
		{Short: "f", Long: "force"}, {Short: "i", Long: "interactive"}, {Short: "n", Long: "no-clobber"},
		{Long: "strip-trailing-slashes"}, {Short: "S", Long: "suffix", Arg: Text},
		{Short: "t", Long: "target-directory", Arg: WritePath}, {Short: "T", Long: "no-target-directory"},
		{Short: "u", Long: "update"}, {Short: "v", Long: "verbose"}, {Short: "Z", Long: "context"},
		{Long: "help"}, {Long: "version"},
	}}

func init() { registerSpec(mvSpec) }

func mvOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil
	}
	ops := a.Operands
	targets := a.Values("t")
	var dest string
	switch {
	case len(targets) > 0:
		dest = targets[len(targets)-1]
	case len(ops) >= 2:
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	default:
		return refuse(CodeBadUsage, "name a source and a destination: mv SRC DEST", "mv needs a source and a destination")
	}
	if len(ops) == 0 {
		return refuse(CodeBadUsage, "name what to move", "mv: no source given")
	}
	suffix, backups := "~", a.Has("b") || a.Has("backup") || a.Has("S")
	if s := a.Values("S"); len(s) > 0 {
		suffix = s[len(s)-1]
	}
	if strings.Contains(suffix, "/") {
		return refuse(CodeForbiddenFlag, "use a plain suffix such as ~ or .bak",
			"mv --suffix %q: a backup suffix with a \"/\" puts the backup in another directory", suffix)
	}
	if err := c.WritePath(dest); err != nil {
		return err
	}
	real, _ := c.WS.Resolve(dest, workspace.Write)
	fi, err := os.Stat(real)
	intoDir := len(targets) > 0 || (err == nil && fi.IsDir() && !a.Has("T"))
	for _, src := range ops {
		if _, err := checkEntry(c, src, "move"); err != nil {
			return err
		}
		landing := dest
		if intoDir {
			landing = filepath.Join(dest, filepath.Base(src))
			if err := c.WritePath(landing); err != nil {
				return err
			}
		}
		if backups {
			if err := c.WritePath(strings.TrimRight(landing, "/") + suffix); err != nil {
				return err
			}
		}
	}
	return nil
}
