package validators

import "strings"

// true and false (GNU coreutils 9.1) ignore their arguments, except a lone
// --help or --version, which print and exit 0. seq prints numbers; its
// format and separator are text, and its format is checked by seq itself
// to hold exactly one floating-point directive (no %n, no %s).

func registerTrivial() {
	for _, name := range []string{"true", "false"} {
		register(name, ValidatorFunc(func(*Call) error { return nil }), func() Entry {
			return Entry{Program: name, Operands: "ignored; every argument is accepted", Allowed: []string{"--help", "--version"}}
		})
	}
	register("seq", ValidatorFunc(checkSeq), seqSpec.Entry)
}

// seqSpec is seq's flag table. seq's getopt string starts with "+", so
// options end at the first operand, and seq stops before a word that looks
// like a negative number (-5, -.5) so that it is an operand.
var seqSpec = &Spec{Name: "seq", Doc: "[FIRST [INCREMENT]] LAST: numbers, never opened", NoPermute: true, Operands: Texts, Flags: []Flag{
	{Short: "f", Long: "format", Arg: Text}, {Short: "s", Long: "separator", Arg: Text},
	{Short: "w", Long: "equal-width"}, {Long: "help"}, {Long: "version"},
}}

// checkSeq finds where seq's options end as seq does, then checks them
// with the table. The operands are text.
func checkSeq(c *Call) error {
	args := c.Argv[1:]
	end := 0
	for end < len(args) {
		w := args[end]
		if w == "--" || len(w) < 2 || w[0] != '-' || w[1] == '.' || (w[1] >= '0' && w[1] <= '9') {
			break
		}
		end++
		if seqTakesNext(w) && end < len(args) {
			end++ // the value of -f, -s, --format or --separator
		}
	}
	a, err := seqSpec.Parse(args[:end])
	if err != nil {
		return err
	}
	for _, u := range a.Flags {
		if err := c.checkValue(u); err != nil {
			return err
		}
	}
	return nil
}

// seqTakesNext reports whether option word w takes the next word as its
// value.
func seqTakesNext(w string) bool {
	if long, ok := strings.CutPrefix(w, "--"); ok {
		return long == "format" || long == "separator"
	}
	for i := 1; i < len(w); i++ {
		if w[i] == 'f' || w[i] == 's' {
			return i == len(w)-1
		}
	}
	return false
}
