package validators

// nl (GNU coreutils 9.1) numbers the lines of the files it reads. The
// -b/-f/-h STYLE "pBRE" is a regular expression, matched, never run.
var nlSpec = &Spec{Name: "nl", Doc: "files to number, confined (- is standard input)", Operands: ReadPaths, Flags: []Flag{
	{Short: "b", Long: "body-numbering", Arg: Text}, {Short: "d", Long: "section-delimiter", Arg: Text},
	{Short: "f", Long: "footer-numbering", Arg: Text}, {Short: "h", Long: "header-numbering", Arg: Text},
	{Short: "i", Long: "line-increment", Arg: Number}, {Short: "l", Long: "join-blank-lines", Arg: Number},
	{Short: "n", Long: "number-format", Arg: Text}, {Short: "p", Long: "no-renumber"},
	{Short: "s", Long: "number-separator", Arg: Text}, {Short: "v", Long: "starting-line-number", Arg: Number},
	{Short: "w", Long: "number-width", Arg: Number},
	{Long: "help"}, {Long: "version"},
}}

func registerNl() { registerSpec(nlSpec) }
