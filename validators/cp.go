package validators

import (
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/workspace"
)

var cpSpec = &Spec{Name: "cp", Doc: "SOURCE... DEST: sources read, destination written; both confined, and where each source lands checked", Operands: cpOperands, Flags: []Flag{
	{Short: "a", Long: "archive"}, {Long: "attributes-only"},
	{Long: "backup", Arg: Text, Optional: true}, {Short: "b"}, {Long: "copy-contents"},
	{Short: "d"}, {Short: "f", Long: "force"}, {Short: "i", Long: "interactive"},
	{Short: "H"}, {Short: "n", Long: "no-clobber"}, {Short: "P", Long: "no-dereference"},
	{Short: "p"}, {Long: "preserve", Arg: Text, Optional: true}, {Long: "no-preserve", Arg: Text},
	{Long: "parents"}, {Short: "R", Long: "recursive"}, {Short: "r"},
	{Long: "reflink", Arg: Text, Optional: true}, {Long: "remove-destination"},
	{Long: "sparse", Arg: Text}, {Long: "strip-trailing-slashes"},
	{Short: "S", Long: "suffix", Arg: NamePart}, {Short: "t", Long: "target-directory", Arg: WritePath},
	{Short: "T", Long: "no-target-directory"}, {Short: "u", Long: "update"}, // coreutils 9.1: --update takes no value (--update=WHEN came in 9.3)
	{Short: "v", Long: "verbose"}, {Short: "x", Long: "one-file-system"},
	{Long: "keep-directory-symlink"}, {Long: "debug"}, {Long: "help"}, {Long: "version"},
	{Short: "l", Long: "link", Forbid: "hard links share a file with its original, so a write to one changes the other"},
	{Short: "s", Long: "symbolic-link", Forbid: "symbolic links are how paths escape the workspace"},
	{Short: "L", Long: "dereference", Forbid: symlinkEscape},
}}

func registerCp() { registerSpec(cpSpec) }

// cpOperands checks sources as reads and the destination as a write. When
// the destination is a directory, the entry each source lands on is checked
// too, so "cp -r sub/.git ." cannot create a protected path.
func cpOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil
	}
	t, err := readTransfer(c, a, "copy")
	if err != nil {
		return err
	}
	recursive := a.Has("R") || a.Has("r") || a.Has("a")
	copiesLink := a.Has("P") || a.Has("d") || a.Has("a") || (recursive && !a.Has("H"))
	// With -H only the operands are followed; links inside are copied.
	if err := oneSourceIfLinks(c, t.sources, copiesLink || recursive, recursive); err != nil {
		return err
	}
	for _, src := range t.sources {
		if err := c.ReadPath(src, false); err != nil {
			return err
		}
		if _, name := workspace.SplitLast(src); strings.TrimRight(name, "/") == ".." {
			return refuse(CodeBadUsage, "name the directory itself, not through ..",
				"%s: %q ends in \"..\": where cp puts it is not what the name says", c.Program(), src)
		}
		landing := t.landing(src)
		if a.Has("parents") {
			for _, part := range strings.Split(src, "/") {
				if part == ".." {
					return refuse(CodeBadUsage, "copy with --parents from paths without ..",
						"%s --parents %q: cp recreates the path as written, \"..\" included, below the destination", c.Program(), src)
				}
			}
			landing = filepath.Join(t.real, src)
		}
		if t.intoDir || a.Has("parents") {
			if err := c.WritePath(landing); err != nil {
				return err
			}
		} else {
			landing = t.dest
		}
		if err := t.checkBackup(c, landing); err != nil {
			return err
		}
		// What the copy creates: "cp -r repo/. ." lands repo/.git on
		// ./.git, an entry landing on a link is written through it, and a
		// copied link may lead elsewhere from its new place.
		entry, followed, err := locateEntry(c.WS, src)
		if err != nil {
			return pathFinding(c.Program(), src, err)
		}
		backup := ""
		if t.backups {
			backup = t.suffix
		}
		if err := checkTreeLanding(c, src, entry, landing, followed || !copiesLink, recursive, backup); err != nil {
			return err
		}
	}
	return nil
}
