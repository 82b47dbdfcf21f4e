package validators

import (
	"regexp"

	"github.com/vtexec/vtexec/workspace"
)

// uniq (GNU coreutils 9.1) takes at most two operands: INPUT, read, and
// OUTPUT, which uniq truncates and writes, so it is checked as a write
// ("-" is standard input or output). An operand "+N" is not a file: uniq
// takes it as the obsolete form of -s N, which shifts INPUT and OUTPUT one
// place to the right, so it is refused with the modern spelling as hint.
// OUTPUT naming the INPUT file is refused too: uniq would empty it first.
// -0 ... -9 are the obsolete form of -f N (uniq -2 skips two fields); as
// getopt options they are harmless and kept.
var uniqSpec = &Spec{Name: "uniq", Doc: "[INPUT [OUTPUT]]: INPUT read, OUTPUT written, both confined (- is standard input/output)", Operands: uniqOperands, Flags: []Flag{
	{Short: "c", Long: "count"}, {Short: "d", Long: "repeated"}, {Short: "D"},
	{Long: "all-repeated", Arg: Text, Optional: true},
	{Short: "f", Long: "skip-fields", Arg: Number},
	{Long: "group", Arg: Text, Optional: true},
	{Short: "i", Long: "ignore-case"}, {Short: "s", Long: "skip-chars", Arg: Number},
	{Short: "u", Long: "unique"}, {Short: "z", Long: "zero-terminated"},
	{Short: "w", Long: "check-chars", Arg: Number},
	{Long: "help"}, {Long: "version"},
	{Short: "0"}, {Short: "1"}, {Short: "2"}, {Short: "3"}, {Short: "4"},
	{Short: "5"}, {Short: "6"}, {Short: "7"}, {Short: "8"}, {Short: "9"},
}}

func registerUniq() { registerSpec(uniqSpec) }

// uniqObsoleteSkip is the "+N" operand uniq reads as -s N.
var uniqObsoleteSkip = &lazy[*regexp.Regexp]{make: func() *regexp.Regexp { return regexp.MustCompile(`^\+[0-9]+$`) }}

// uniqOperands checks INPUT as a read and OUTPUT as a write.
func uniqOperands(c *Call, a *Args) error {
	ops := a.Operands
	for _, op := range ops {
		if uniqObsoleteSkip.get().MatchString(op) {
			return refuse(CodeForbiddenFlag, "write -s "+op[1:]+" to skip characters (or ./"+op+" for a file of that name)",
				"uniq %s is the obsolete form of -s %s, which moves the input and output operands; vtexec refuses it", op, op[1:])
		}
	}
	if len(ops) > 2 {
		return refuse(CodeBadUsage, "give uniq at most INPUT and OUTPUT; to read several files, sort or cat them into uniq",
			"uniq takes at most two operands (INPUT OUTPUT), got %d", len(ops))
	}
	if len(ops) >= 1 {
		if err := c.ReadPath(ops[0], true); err != nil {
			return err
		}
	}
	if len(ops) == 2 && ops[1] != "-" {
		if err := c.WritePath(ops[1]); err != nil {
			return err
		}
		in, _ := c.WS.Resolve(ops[0], workspace.Read)
		out, _ := c.WS.Resolve(ops[1], workspace.Write)
		if ops[0] != "-" && in == out {
			return refuse(CodeBadUsage, "write to another file, then mv it over the input",
				"uniq %s %s: the output is the input, which uniq empties before reading it", ops[0], ops[1])
		}
	}
	return nil
}
