package validators

// comm (GNU coreutils 9.1) compares two sorted files line by line. Both
// operands are read and confined ("-" is standard input); the output
// delimiter is text. It writes nothing but its output.

var commSpec = &Spec{Name: "comm", Doc: "FILE1 FILE2, read and confined; '-' is standard input", Operands: ReadPaths, Flags: []Flag{
	{Short: "1"}, {Short: "2"}, {Short: "3"},
	{Long: "check-order"}, {Long: "nocheck-order"},
	{Long: "output-delimiter", Arg: Text}, {Long: "total"},
	{Short: "z", Long: "zero-terminated"},
	{Long: "help"}, {Long: "version"},
}}

func registerComm() { registerSpec(commSpec) }
