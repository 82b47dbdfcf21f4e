package validators

// tr (GNU coreutils 9.1) reads only standard input and writes standard
// output; its operands are character sets, text it never opens. tr stops
// parsing flags at the first operand ("tr b -d" maps b to -), so the spec
// does not permute.
var trSpec = &Spec{Name: "tr", Doc: "SET1 [SET2]: character sets, text (tr reads standard input only)", NoPermute: true, Operands: Texts, Flags: []Flag{
	{Short: "c"}, {Short: "C"}, {Long: "complement"},
	{Short: "d", Long: "delete"}, {Short: "s", Long: "squeeze-repeats"},
	{Short: "t", Long: "truncate-set1"},
	{Long: "help"}, {Long: "version"},
}}

func registerTr() { registerSpec(trSpec) }
