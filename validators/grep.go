package validators

// grep (GNU grep 3.8). Everything but the pattern is a file to read: the
// operands, -f and --exclude-from. -r does not follow symbolic links below
// the operands (and the operands are resolved); -R does, so with -R every
// link in the trees searched must lead inside the workspace.

var grepSpec = &Spec{Name: "grep", Doc: "PATTERN (unless -e/-f) then files and directories to search, confined; with -R, every symbolic link in them too", Operands: grepOperands, Flags: []Flag{
	// Pattern syntax and matching.
	{Short: "E", Long: "extended-regexp"}, {Short: "F", Long: "fixed-strings"}, {Long: "fixed-regexp"},
	{Short: "G", Long: "basic-regexp"}, {Short: "P", Long: "perl-regexp"},
	{Short: "e", Long: "regexp", Arg: Text, Pattern: true},
	{Short: "f", Long: "file", Arg: ReadPath, Pattern: true},
	{Short: "i", Long: "ignore-case"}, {Short: "y"}, {Long: "no-ignore-case"},
	{Short: "w", Long: "word-regexp"}, {Short: "x", Long: "line-regexp"}, {Short: "z", Long: "null-data"},
	// Miscellaneous.
	{Short: "s", Long: "no-messages"}, {Short: "v", Long: "invert-match"},
	{Short: "V", Long: "version"}, {Long: "help"},
	// Output.
	{Short: "m", Long: "max-count", Arg: Number}, {Short: "b", Long: "byte-offset"},
	{Short: "n", Long: "line-number"}, {Long: "line-buffered"},
	{Short: "H", Long: "with-filename"}, {Short: "h", Long: "no-filename"}, {Long: "label", Arg: Text},
	{Short: "o", Long: "only-matching"}, {Short: "q", Long: "quiet"}, {Long: "silent"},
	{Long: "binary-files", Arg: Text}, {Short: "a", Long: "text"}, {Short: "I"},
	{Short: "d", Long: "directories", Arg: Text}, {Short: "D", Long: "devices", Arg: Text},
	{Short: "r", Long: "recursive"},
	{Short: "R", Long: "dereference-recursive"},
	{Long: "include", Arg: Text}, {Long: "exclude", Arg: Text},
	{Long: "exclude-from", Arg: ReadPath}, {Long: "exclude-dir", Arg: Text},
	{Short: "L", Long: "files-without-match"}, {Short: "l", Long: "files-with-matches"},
	{Short: "c", Long: "count"}, {Short: "T", Long: "initial-tab"}, {Short: "Z", Long: "null"},
	{Short: "U", Long: "binary"}, {Short: "u", Long: "unix-byte-offsets"},
	// Context. -NUM is a run of digit options: -5, -15, -n5 and -5n all work.
	{Short: "A", Long: "after-context", Arg: Number}, {Short: "B", Long: "before-context", Arg: Number},
	{Short: "C", Long: "context", Arg: Number},
	{Short: "0"}, {Short: "1"}, {Short: "2"}, {Short: "3"}, {Short: "4"},
	{Short: "5"}, {Short: "6"}, {Short: "7"}, {Short: "8"}, {Short: "9"},
	{Long: "group-separator", Arg: Text}, {Long: "no-group-separator"},
	{Long: "color", Arg: Text, Optional: true}, {Long: "colour", Arg: Text, Optional: true},
}}

func registerGrep() { registerSpec(grepSpec) }

// searchOperands checks the operands of grep-like programs: the first
// operand is the pattern, unless a Pattern flag (-e, -f) supplied it or one
// of the named flags (rg --files) means there is none; every other operand
// is a file or directory to read, "-" being standard input.
//
// A search that follows symbolic links while it walks (grep -R, rg -L)
// has every link in its trees checked too; with no operand it searches
// the current directory.
func searchOperands(c *Call, a *Args, noPattern ...string) error {
	ops := a.Operands
	if len(ops) > 0 && !patternGiven(a, noPattern) {
		ops = ops[1:]
	}
	for _, op := range ops {
		if err := c.ReadPath(op, true); err != nil {
			return err
		}
	}
	follow := followingFlag(a)
	if follow == "" {
		return nil
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	return checkFollowedTrees(c, c.Program()+" "+follow, followHint.get()[c.Program()], ops)
}

// grepOperands are grep's operands: a pattern unless -e/-f gave one.
func grepOperands(c *Call, a *Args) error { return searchOperands(c, a) }

// followingFlag is how a search was told to follow symbolic links while
// it walks (grep -R, rg -L/--follow), or "".
func followingFlag(a *Args) string {
	for _, u := range a.Flags {
		if u.Flag.Long == "dereference-recursive" || u.Flag.Long == "follow" {
			return u.As
		}
	}
	return ""
}

var followHint = &lazy[map[string]string]{make: func() map[string]string {
	return map[string]string{
		"grep": "use grep -r, which does not follow symbolic links below the paths it is given, or name the link's target if it is inside the workspace",
		"rg":   "drop -L: rg then does not follow symbolic links, or name the link's target if it is inside the workspace",
	}
}}

// patternGiven reports whether a flag supplied the pattern or script, or a
// flag named in modes means the program takes none.
func patternGiven(a *Args, modes []string) bool {
	for _, u := range a.Flags {
		if u.Flag.Pattern {
			return true
		}
	}
	for _, m := range modes {
		if a.Has(m) {
			return true
		}
	}
	return false
}
