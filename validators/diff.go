package validators

// diff (GNU diffutils 3.8) compares files and directory trees and writes
// nothing but its output: no flag writes a file. The operands, --from-file,
// --to-file and --exclude-from are read, so they are confined. Everything
// else is text: labels, regexes, the -D/--ifdef macro name and the
// --*-format templates only shape the output.
//
// Two channels need more than a table:
//
//   - Comparing directories (DIR DIR, FILE DIR, -r) opens the entries
//     inside them with stat, which follows symbolic links, so a link in
//     the tree could lead diff out of the workspace. Unless
//     --no-dereference makes diff compare links as links, every link in
//     the directories compared must lead inside the workspace.
//   - -l/--paginate runs /usr/bin/pr on the output: refused.

const diffNoDeref = "add --no-dereference: diff then compares symbolic links as links instead of reading what they point to"

var diffSpec = &Spec{Name: "diff", Doc: "FILE1 FILE2 (or directories, with --no-dereference), read and confined; '-' is standard input", Operands: diffOperands, Flags: []Flag{
	// Output format.
	{Long: "normal"}, {Short: "q", Long: "brief"}, {Short: "s", Long: "report-identical-files"},
	// -C and -U need a number; --context and --unified take one only as
	// --context=NUM. (Text: the framework's Number check refuses an
	// Optional flag written without its value.)
	{Short: "c"}, {Short: "C", Arg: Number}, {Long: "context", Arg: Text, Optional: true},
	{Short: "u"}, {Short: "U", Arg: Number}, {Long: "unified", Arg: Text, Optional: true},
	{Short: "e", Long: "ed"}, {Short: "f", Long: "forward-ed"}, {Short: "n", Long: "rcs"},
	{Short: "y", Long: "side-by-side"}, {Short: "W", Long: "width", Arg: Number},
	{Long: "left-column"}, {Long: "suppress-common-lines"},
	{Short: "p", Long: "show-c-function"}, {Short: "F", Long: "show-function-line", Arg: Text},
	{Short: "L", Long: "label", Arg: Text},
	{Short: "t", Long: "expand-tabs"}, {Short: "T", Long: "initial-tab"}, {Long: "tabsize", Arg: Number},
	{Long: "suppress-blank-empty"},
	{Short: "D", Long: "ifdef", Arg: Text}, {Long: "line-format", Arg: Text},
	{Long: "old-line-format", Arg: Text}, {Long: "new-line-format", Arg: Text},
	{Long: "unchanged-line-format", Arg: Text}, {Long: "old-group-format", Arg: Text},
	{Long: "new-group-format", Arg: Text}, {Long: "unchanged-group-format", Arg: Text},
	{Long: "changed-group-format", Arg: Text},
	{Long: "color", Arg: Text, Optional: true}, {Long: "palette", Arg: Text},
	// -NUM: obsolete context length, a run of digit options as in grep.
	{Short: "0"}, {Short: "1"}, {Short: "2"}, {Short: "3"}, {Short: "4"},
	{Short: "5"}, {Short: "6"}, {Short: "7"}, {Short: "8"}, {Short: "9"},
	// Which files.
	{Short: "r", Long: "recursive"}, {Long: "no-dereference"},
	{Short: "N", Long: "new-file"}, {Short: "P", Long: "unidirectional-new-file"},
	{Long: "ignore-file-name-case"}, {Long: "no-ignore-file-name-case"},
	{Short: "x", Long: "exclude", Arg: Text}, {Short: "X", Long: "exclude-from", Arg: ReadPath},
	// -S names the entry to start at inside the directories; it is compared
	// with names, never opened.
	{Short: "S", Long: "starting-file", Arg: Text},
	{Long: "from-file", Arg: ReadPath}, {Long: "to-file", Arg: ReadPath},
	// Comparison.
	{Short: "i", Long: "ignore-case"}, {Short: "E", Long: "ignore-tab-expansion"},
	{Short: "Z", Long: "ignore-trailing-space"}, {Short: "b", Long: "ignore-space-change"},
	{Short: "w", Long: "ignore-all-space"}, {Short: "B", Long: "ignore-blank-lines"},
	{Short: "I", Long: "ignore-matching-lines", Arg: Text},
	{Short: "a", Long: "text"}, {Long: "strip-trailing-cr"}, {Long: "binary"},
	{Short: "d", Long: "minimal"}, {Long: "horizon-lines", Arg: Number},
	{Short: "H", Long: "speed-large-files"}, {Long: "inhibit-hunk-merge"}, {Short: "h"},
	{Long: "help"}, {Short: "v", Long: "version"},
	{Short: "l", Long: "paginate", Forbid: "runs /usr/bin/pr on the output; pipe diff's output into pr instead"},
}}

func registerDiff() { registerSpec(diffSpec) }

// diffOperands checks the files compared and, unless --no-dereference is
// given, every symbolic link in the directories compared, which diff
// follows.
func diffOperands(c *Call, a *Args) error {
	if err := ReadPaths(c, a); err != nil {
		return err
	}
	if a.Has("no-dereference") {
		return nil
	}
	// --from-file and --to-file may name directories too; their values were
	// checked as reads when the flags were parsed.
	compared := append(append(append([]string(nil), a.Operands...), a.Values("from-file")...), a.Values("to-file")...)
	return checkFollowedTrees(c, "diff comparing directories", diffNoDeref, compared)
}
