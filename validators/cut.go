package validators

// cut (GNU coreutils 9.1) prints selected parts of the lines of the files
// it reads; every flag value is a list or a delimiter, never a file.
var cutSpec = &Spec{Name: "cut", Doc: "files to read, confined (- is standard input)", Operands: ReadPaths, Flags: []Flag{
	{Short: "b", Long: "bytes", Arg: Text}, {Short: "c", Long: "characters", Arg: Text},
	{Short: "d", Long: "delimiter", Arg: Text}, {Short: "f", Long: "fields", Arg: Text},
	{Short: "n"}, {Long: "complement"}, {Short: "s", Long: "only-delimited"},
	{Long: "output-delimiter", Arg: Text}, {Short: "z", Long: "zero-terminated"},
	{Long: "help"}, {Long: "version"},
}}

func registerCut() { registerSpec(cutSpec) }
