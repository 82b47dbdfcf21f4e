package validators

// touch creates files and changes their times: every operand is a write,
// resolved through symbolic links (a dangling link is followed to where
// touch would create the file). "-" means standard output, which vtexec
// captures or a redirect already checked. -r reads another file's times.
var touchSpec = &Spec{Name: "touch", Doc: "files to create or touch, each confined and writable; - is standard output; -r FILE is read",
	Operands: touchOperands, Flags: []Flag{
		{Short: "a"}, {Short: "c", Long: "no-create"}, {Short: "d", Long: "date", Arg: Text},
		{Short: "f"}, {Short: "h", Long: "no-dereference"}, {Short: "m"},
		{Short: "r", Long: "reference", Arg: ReadPath}, {Short: "t", Arg: Text},
		{Long: "time", Arg: Text}, {Long: "help"}, {Long: "version"},
	}}

func registerTouch() { registerSpec(touchSpec) }

func touchOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil
	}
	if len(a.Operands) == 0 {
		return refuse(CodeBadUsage, "name the files: touch FILE...", "touch: no file given")
	}
	for _, op := range a.Operands {
		if op == "-" {
			continue
		}
		if err := c.WritePath(op); err != nil {
			return err
		}
	}
	return nil
}
