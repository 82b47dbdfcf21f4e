package validators

// stat (GNU coreutils 9.1) prints the metadata of the files it is given
// ("-" is standard input). Without -L a symbolic link is described itself,
// with -L its target; both are fine because vtexec resolves every operand,
// links included, and refuses one whose target is outside the workspace.
// -c/--format and --printf are output formats, text stat never opens.
var statSpec = &Spec{Name: "stat", Doc: "files to describe, confined (- is standard input)", Operands: ReadPaths, Flags: []Flag{
	{Short: "L", Long: "dereference"}, {Short: "f", Long: "file-system"},
	{Long: "cached", Arg: Text},
	{Short: "c", Long: "format", Arg: Text}, {Long: "printf", Arg: Text},
	{Short: "t", Long: "terse"},
	{Long: "help"}, {Long: "version"},
}}

func registerStat() { registerSpec(statSpec) }
