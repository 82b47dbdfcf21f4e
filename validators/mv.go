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
		{Long: "strip-trailing-slashes"}, {Short: "S", Long: "suffix", Arg: NamePart},
		{Short: "t", Long: "target-directory", Arg: WritePath}, {Short: "T", Long: "no-target-directory"},
		{Short: "u", Long: "update"}, {Short: "v", Long: "verbose"}, {Short: "Z", Long: "context"},
		{Long: "help"}, {Long: "version"},
	}}

func registerMv() { registerSpec(mvSpec) }

func mvOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil
	}
	t, err := readTransfer(c, a, "move")
	if err != nil {
		return err
	}
	if err := oneSourceIfLinks(c, t.sources, true, true); err != nil {
		return err
	}
	for _, src := range t.sources {
		if _, err := checkEntry(c, src, "move"); err != nil {
			return err
		}
		landing := t.dest
		if t.intoDir {
			landing = t.landing(src)
			if err := c.WritePath(landing); err != nil {
				return err
			}
		}
		if err := t.checkBackup(c, landing); err != nil {
			return err
		}
		// A moved link keeps its text: from its new place it may lead
		// elsewhere; so may the links inside a moved directory.
		entry, followed, err := locateEntry(c.WS, src)
		if err != nil {
			return pathFinding(c.Program(), src, err)
		}
		if err := checkTreeLanding(c, src, entry, landing, followed, true, ""); err != nil {
			return err
		}
	}
	return nil
}

// transfer is what cp and mv share: the sources, the destination as given
// and as the kernel finds it, whether sources go into it, and backups.
type transfer struct {
	sources []string
	dest    string
	real    string // dest resolved for writing
	intoDir bool   // -t DIR, or an existing directory without -T
	suffix  string // the backup suffix, when backups are made
	backups bool
}

// readTransfer reads cp's or mv's operands and checks the destination
// as a write.
func readTransfer(c *Call, a *Args, verb string) (*transfer, error) {
	ops, dest, err := sourcesAndDest(c, a, verb)
	if err != nil {
		return nil, err
	}
	suffix, backups, err := backupSuffix(a)
	if err != nil {
		return nil, err
	}
	if err := c.WritePath(dest); err != nil {
		return nil, err
	}
	real, _ := c.WS.Resolve(dest, workspace.Write)
	fi, statErr := os.Stat(real)
	intoDir := len(a.Values("t")) > 0 || (statErr == nil && fi.IsDir() && !a.Has("T"))
	return &transfer{sources: ops, dest: dest, real: real, intoDir: intoDir, suffix: suffix, backups: backups}, nil
}

// landing is where src lands inside the destination directory: its last
// name below the destination as the kernel finds it, so a ".." in either
// is taken physically, never as text.
func (t *transfer) landing(src string) string {
	_, name := workspace.SplitLast(src)
	return filepath.Join(t.real, strings.TrimRight(name, "/"))
}

// checkBackup checks the backup a replaced landing is kept as.
func (t *transfer) checkBackup(c *Call, landing string) error {
	if !t.backups {
		return nil
	}
	return c.WritePath(strings.TrimRight(landing, "/") + t.suffix)
}

// sourcesAndDest splits cp/mv operands: -t DIR names the destination,
// otherwise the last operand does.
func sourcesAndDest(c *Call, a *Args, verb string) (sources []string, dest string, err error) {
	ops := a.Operands
	switch targets := a.Values("t"); {
	case len(targets) > 0:
		dest = targets[len(targets)-1]
	case len(ops) >= 2:
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	default:
		return nil, "", refuse(CodeBadUsage, "name a source and a destination: "+c.Program()+" SRC DEST",
			"%s needs a source and a destination", c.Program())
	}
	if len(ops) == 0 {
		return nil, "", refuse(CodeBadUsage, "name what to "+verb, "%s: no source given", c.Program())
	}
	return ops, dest, nil
}

// backupSuffix reports whether cp/mv make backups and with which suffix;
// a suffix with "/" would put the backup in another directory.
func backupSuffix(a *Args) (suffix string, backups bool, err error) {
	suffix, backups = "~", a.Has("b") || a.Has("backup") || a.Has("S")
	if s := a.Values("S"); len(s) > 0 {
		suffix = s[len(s)-1]
	}
	if strings.Contains(suffix, "/") {
		return "", false, refuse(CodeForbiddenFlag, "use a plain suffix such as ~ or .bak",
			"--suffix %q: a backup suffix with a \"/\" puts the backup in another directory", suffix)
	}
	return suffix, backups, nil
}
