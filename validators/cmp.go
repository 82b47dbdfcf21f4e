package validators

// cmp (GNU diffutils 3.8) compares two files byte by byte and writes only
// its report. The two files are read and confined; the optional SKIP1 and
// SKIP2 operands after them are byte counts, never opened. It does not
// descend into directories.

var cmpSpec = &Spec{Name: "cmp", Doc: "FILE1 [FILE2 [SKIP1 [SKIP2]]]: the files read and confined ('-' or a missing FILE2 is standard input), the SKIPs byte counts", Operands: cmpOperands, Flags: []Flag{
	{Short: "b", Long: "print-bytes"}, {Short: "c", Long: "print-chars"},
	// SKIP or SKIP1:SKIP2, with suffixes (10K, 1MB) and C bases (0x10).
	{Short: "i", Long: "ignore-initial", Arg: Text},
	{Short: "l", Long: "verbose"}, {Short: "n", Long: "bytes", Arg: Text},
	{Short: "s", Long: "quiet"}, {Long: "silent"},
	{Long: "help"}, {Short: "v", Long: "version"},
}}

func registerCmp() { registerSpec(cmpSpec) }

// cmpOperands checks the two files; the operands after them are skips.
func cmpOperands(c *Call, a *Args) error {
	ops := a.Operands
	if len(ops) > 4 {
		return refuse(CodeBadUsage, "cmp FILE1 FILE2 [SKIP1 [SKIP2]]", "cmp: extra operand %q", ops[4])
	}
	for i, op := range ops {
		if i >= 2 {
			break
		}
		if err := c.ReadPath(op, true); err != nil {
			return err
		}
	}
	return nil
}
