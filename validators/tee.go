package validators

// tee copies its input to standard output and to every operand, each a
// write ("-" is a file named -, which GNU tee writes like any other).
var teeSpec = &Spec{Name: "tee", Doc: "files to write, each confined and writable",
	Operands: teeOperands, Flags: []Flag{
		{Short: "a", Long: "append"}, {Short: "i", Long: "ignore-interrupts"}, {Short: "p"},
		{Long: "output-error", Arg: Text, Optional: true}, {Long: "help"}, {Long: "version"},
	}}

func registerTee() { registerSpec(teeSpec) }

// teeOperands checks every file tee writes; tee with none only copies to
// standard output.
func teeOperands(c *Call, a *Args) error {
	for _, op := range a.Operands {
		if err := c.WritePath(op); err != nil {
			return err
		}
	}
	return nil
}
