package validators

import "path/filepath"

// Programs that print path names. basename and dirname only cut strings and
// never look at the file system: their operands are text. realpath and
// readlink print where a path resolves, or what a link holds: they read
// nothing but names, but a path outside the workspace is refused all the
// same, so they cannot be used to map what lies beyond it.

func registerPathnames() {
	// basename's getopt string starts with "+": options end at the first
	// operand, so "basename NAME -a" strips the suffix "-a".
	registerSpec(&Spec{Name: "basename", Doc: "NAME [SUFFIX] or NAME... with -a/-s: strings, never opened", NoPermute: true, Operands: Texts, Flags: []Flag{
		{Short: "a", Long: "multiple"}, {Short: "s", Long: "suffix", Arg: Text},
		{Short: "z", Long: "zero"}, {Long: "help"}, {Long: "version"},
	}})
	registerSpec(&Spec{Name: "dirname", Doc: "NAME...: strings, never opened", Operands: Texts, Flags: []Flag{
		{Short: "z", Long: "zero"}, {Long: "help"}, {Long: "version"},
	}})
	registerSpec(&Spec{Name: "realpath", Doc: "paths to resolve, confined (both as resolved through links and as written, since -s and -L resolve without or before links)", Operands: nameOperands, Flags: []Flag{
		{Short: "e", Long: "canonicalize-existing"}, {Short: "m", Long: "canonicalize-missing"},
		{Short: "L", Long: "logical"}, {Short: "P", Long: "physical"},
		{Short: "q", Long: "quiet"}, {Short: "s", Long: "strip"}, {Long: "no-symlinks"},
		{Short: "z", Long: "zero"},
		// The directories that printed names are made relative to are paths
		// too, checked like the operands.
		{Long: "relative-to", Arg: ReadPath}, {Long: "relative-base", Arg: ReadPath},
		{Long: "help"}, {Long: "version"},
	}})
	registerSpec(&Spec{Name: "readlink", Doc: "links or paths to resolve, confined: a link that points out of the workspace is refused", Operands: nameOperands, Flags: []Flag{
		{Short: "f", Long: "canonicalize"}, {Short: "e", Long: "canonicalize-existing"},
		{Short: "m", Long: "canonicalize-missing"}, {Short: "n", Long: "no-newline"},
		{Short: "q", Long: "quiet"}, {Short: "s", Long: "silent"}, {Short: "v", Long: "verbose"},
		{Short: "z", Long: "zero"}, {Long: "help"}, {Long: "version"},
	}})
}

// nameOperands checks the operands of realpath and readlink, and realpath's
// --relative-to and --relative-base: each must resolve inside the
// workspace through its links (the default) and also as written with ".."
// taken lexically (realpath -s and -L). "-" is a file named "-".
func nameOperands(c *Call, a *Args) error {
	names := append(append(append([]string(nil), a.Operands...), a.Values("relative-to")...), a.Values("relative-base")...)
	for _, p := range names {
		if err := c.ReadPath(p, false); err != nil {
			return err
		}
		if clean := filepath.Clean(p); clean != p {
			if err := c.ReadPath(clean, false); err != nil {
				return err
			}
		}
	}
	return nil
}
