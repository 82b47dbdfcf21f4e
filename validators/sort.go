package validators

// sort (GNU coreutils 9.1). The operands are files to read. Three flags
// name more files: -o writes the result (confined: "sort -o f f" sorts f in
// place), -T puts temporary files in a directory (confined as a write), and
// --random-source reads random bytes from a file (confined). Two flags are
// refused: --compress-program runs a program, and --files0-from reads the
// input names from a file, where vtexec cannot see them.
var sortSpec = &Spec{Name: "sort", Doc: "files to sort, confined (- is standard input); -o FILE is written, confined", Operands: ReadPaths, Flags: []Flag{
	// Ordering.
	{Short: "b", Long: "ignore-leading-blanks"}, {Short: "d", Long: "dictionary-order"},
	{Short: "f", Long: "ignore-case"}, {Short: "g", Long: "general-numeric-sort"},
	{Short: "i", Long: "ignore-nonprinting"}, {Short: "M", Long: "month-sort"},
	{Short: "h", Long: "human-numeric-sort"}, {Short: "n", Long: "numeric-sort"},
	{Short: "R", Long: "random-sort"}, {Long: "random-source", Arg: ReadPath},
	{Short: "r", Long: "reverse"}, {Long: "sort", Arg: Text}, {Short: "V", Long: "version-sort"},
	// Other. -c takes no value; --check takes an optional one (=quiet).
	{Long: "batch-size", Arg: Number},
	{Short: "c"}, {Long: "check", Arg: Text, Optional: true}, {Short: "C"},
	{Long: "compress-program", Arg: Text, Forbid: "runs the named program (and PROG -d) on the temporary files; drop it, sort does not need it"},
	{Long: "debug"},
	{Long: "files0-from", Arg: Text, Forbid: "reads the names of the files to sort from a file, so vtexec cannot confine them; name the files as operands"},
	{Short: "k", Long: "key", Arg: Text}, {Short: "m", Long: "merge"},
	{Short: "o", Long: "output", Arg: WritePath}, {Short: "s", Long: "stable"},
	{Short: "S", Long: "buffer-size", Arg: Text}, {Short: "t", Long: "field-separator", Arg: Text},
	{Short: "T", Long: "temporary-directory", Arg: WritePath}, {Long: "parallel", Arg: Number},
	{Short: "u", Long: "unique"}, {Short: "z", Long: "zero-terminated"},
	{Long: "help"}, {Long: "version"},
}}

func registerSort() { registerSpec(sortSpec) }
