package validators

// du (GNU coreutils 9.1) walks the files and directories it is given and
// prints their sizes. It does not follow symbolic links below the operands
// unless told to: -L does, so it is refused. -D/-H follow only the operands,
// which vtexec has already resolved inside the workspace, so they stay.
// -X reads patterns from a file (confined); --files0-from reads the names
// to walk from a file, where vtexec cannot see them, so it is refused.
var duSpec = &Spec{Name: "du", Doc: "files and directories to measure, confined", Operands: ReadPaths, Flags: []Flag{
	{Short: "0", Long: "null"}, {Short: "a", Long: "all"}, {Long: "apparent-size"},
	{Short: "B", Long: "block-size", Arg: Text}, {Short: "b", Long: "bytes"},
	{Short: "c", Long: "total"}, {Short: "D", Long: "dereference-args"}, {Short: "H"},
	{Short: "d", Long: "max-depth", Arg: Number},
	{Long: "files0-from", Arg: Text, Forbid: "reads the names to measure from a file, so vtexec cannot confine them; name them as operands"},
	{Short: "h", Long: "human-readable"}, {Long: "inodes"}, {Short: "k"},
	{Short: "L", Long: "dereference", Forbid: symlinkEscape + "; du -D (or -H) follows only the operands, which vtexec checks"},
	{Short: "l", Long: "count-links"}, {Short: "m"}, {Short: "P", Long: "no-dereference"},
	{Short: "S", Long: "separate-dirs"}, {Long: "si"}, {Short: "s", Long: "summarize"},
	{Short: "t", Long: "threshold", Arg: Text},
	{Long: "time", Arg: Text, Optional: true}, {Long: "time-style", Arg: Text},
	{Short: "X", Long: "exclude-from", Arg: ReadPath}, {Long: "exclude", Arg: Text},
	{Short: "x", Long: "one-file-system"},
	{Long: "help"}, {Long: "version"},
}}

func registerDu() { registerSpec(duSpec) }
