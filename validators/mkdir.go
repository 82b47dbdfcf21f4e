package validators

// mkdir creates directories: every operand is a write. With -p the missing
// parents lie on the operand's own path, which Resolve confines as a whole
// (no ".." after a missing directory), so they are inside too. Any -m mode
// is accepted: on a directory, set-user-ID means nothing and set-group-ID
// and sticky only govern what is created inside it.
var mkdirSpec = &Spec{Name: "mkdir", Doc: "directories to create, each confined and writable (with -p, so is every missing parent)",
	Operands: mkdirOperands, Flags: []Flag{
		{Short: "m", Long: "mode", Arg: Text}, {Short: "p", Long: "parents"}, {Short: "v", Long: "verbose"},
		{Short: "Z"}, {Long: "help"}, {Long: "version"},
		{Long: "context", Arg: Text, Optional: true, Forbid: "can set a chosen SELinux or SMACK security label; -Z sets the default one"},
	}}

func registerMkdir() { registerSpec(mkdirSpec) }

// mkdirOperands is an Operands checker for programs whose operands are all
// files or directories to create or write; at least one is required.
func mkdirOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil
	}
	if len(a.Operands) == 0 {
		return refuse(CodeBadUsage, "name what to write: "+c.Program()+" FILE...", "%s: no operand given", c.Program())
	}
	for _, op := range a.Operands {
		if err := c.WritePath(op); err != nil {
			return err
		}
	}
	return nil
}
