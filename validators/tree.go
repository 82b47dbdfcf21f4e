package validators

import "strings"

// tree (tree 2.1.0) does not use getopt. It reads its command line word by
// word: a word starting with "-" is a cluster of one-letter flags, and a
// flag that takes a value (-L -P -I -H -T -o) takes the NEXT whole word,
// never the rest of its cluster, so "tree -oa x" writes its listing to x
// and lists all files, and "tree -L2" takes the word after as the level.
// Long options are matched exactly and take "--name=value" or
// "--name value". "--" ends the flags; "-" alone is a directory.
//
// The operands are directories to list, resolved and confined; with
// --fromfile they are files holding a listing (paths one per line, "."
// being standard input), which tree prints as a tree without opening the
// paths they name. -l follows symbolic links while walking, -R writes a
// 00Tree.html into every directory at the depth limit, -o writes the
// listing to a file (confined), and --gitfile, --infofile, --hintro and
// --houtro read files (confined; the HTML intro and outro are copied into
// the output verbatim).
var treeSpec = &Spec{
	Name: "tree",
	Doc:  "directories to list, confined; with --fromfile, files holding a listing to print (\".\" is standard input). A flag's value is the next word, even inside a cluster (-oa FILE)",
	Flags: []Flag{
		// Listing.
		{Short: "a"}, {Short: "d"}, {Short: "f"}, {Short: "x"},
		{Short: "l", Forbid: symlinkEscape},
		{Short: "L", Arg: Number},
		{Short: "R", Forbid: "writes a 00Tree.html file into every directory at the -L depth limit; use -L alone, or tree -H . -o FILE for one HTML file"},
		{Short: "P", Arg: Text}, {Short: "I", Arg: Text},
		{Long: "gitignore"}, {Long: "gitfile", Arg: ReadPath},
		{Long: "ignore-case"}, {Long: "matchdirs"}, {Long: "metafirst"}, {Long: "prune"},
		{Long: "info", Forbid: "reads a .info file in every directory, following symbolic links, and prints its comments"},
		{Long: "infofile", Arg: ReadPath}, {Long: "noreport"},
		{Long: "charset", Arg: Text}, {Long: "filelimit", Arg: Number},
		{Short: "o", Arg: WritePath},
		// Files.
		{Short: "q"}, {Short: "N"}, {Short: "Q"}, {Short: "p"}, {Short: "u"}, {Short: "g"},
		{Short: "s"}, {Short: "h"}, {Long: "si"}, {Long: "du"}, {Short: "D"},
		{Long: "timefmt", Arg: Text}, {Short: "F"}, {Long: "inodes"}, {Long: "device"},
		// Sorting.
		{Short: "v"}, {Short: "t"}, {Short: "c"}, {Short: "U"}, {Short: "r"},
		{Long: "dirsfirst"}, {Long: "filesfirst"}, {Long: "sort", Arg: Text},
		// Graphics.
		{Short: "i"}, {Short: "A"}, {Short: "S"}, {Short: "n"}, {Short: "C"},
		// XML, HTML and JSON.
		{Short: "X"}, {Short: "J"}, {Short: "H", Arg: Text}, {Short: "T", Arg: Text},
		{Long: "nolinks"}, {Long: "hintro", Arg: ReadPath}, {Long: "houtro", Arg: ReadPath},
		// Input.
		{Long: "fromfile"}, {Long: "fflinks"},
		// Miscellaneous.
		{Long: "version"}, {Long: "help"},
	},
}

func registerTree() {
	treeSpec.index()
	register("tree", ValidatorFunc(checkTree), treeSpec.Entry)
}

// checkTree checks a tree command line, parsed the way tree parses it.
func checkTree(c *Call) error {
	a, err := parseTree(treeSpec, c.Argv[1:])
	if err != nil {
		return err
	}
	for _, u := range a.Flags {
		if err := c.checkValue(u); err != nil {
			return err
		}
	}
	// Without --fromfile an operand is a directory to walk; with it, a
	// file to read. Either way it must resolve inside the workspace, and
	// "-" is a file or directory named "-", never standard input.
	for _, op := range a.Operands {
		if err := c.ReadPath(op, false); err != nil {
			return err
		}
	}
	return nil
}

// parseTree splits a tree command line as tree's own loop does: each
// value-taking flag of a cluster, in order, takes the next unused word.
func parseTree(s *Spec, args []string) (*Args, error) {
	s.index()
	a := &Args{}
	flags := true
	next := 0
	// take returns the next unused word as the value of the flag as.
	take := func(as string) (string, error) {
		if next >= len(args) {
			return "", refuse(CodeBadUsage, "give the flag its value", "tree: %s needs a value", as)
		}
		next++
		return args[next-1], nil
	}
	for i := 0; i < len(args); i = next {
		next = i + 1
		arg := args[i]
		switch {
		case !flags || len(arg) < 2 || arg[0] != '-':
			a.Operands = append(a.Operands, arg)
		case arg == "--":
			flags = false
		case strings.HasPrefix(arg, "--"):
			name, value, hasValue := strings.Cut(arg[2:], "=")
			f, ok := s.long[name]
			if !ok {
				return nil, s.unknownLong(name)
			}
			if f.Forbid != "" {
				return nil, s.forbidden(f, "--"+name)
			}
			use := FlagUse{Flag: f, As: "--" + name, Value: value}
			switch {
			case f.Arg == NoArg && hasValue:
				return nil, refuse(CodeBadUsage, "drop the =value", "tree: --%s takes no value", name)
			case f.Arg != NoArg && !hasValue:
				v, err := take("--" + name)
				if err != nil {
					return nil, err
				}
				use.Value = v
			}
			a.Flags = append(a.Flags, use)
		default:
			for _, r := range arg[1:] {
				ch := string(r)
				f, ok := s.short[ch]
				if !ok && r >= '0' && r <= '9' {
					return nil, refuse(CodeBadUsage, "put the value in its own word, e.g. tree -L 2",
						"tree: %q: tree 2.1 takes a flag's value from the next word, so the digit %s is read as a flag", arg, ch)
				}
				if !ok {
					return nil, s.unknownShort(ch)
				}
				if f.Forbid != "" {
					return nil, s.forbidden(f, "-"+ch)
				}
				use := FlagUse{Flag: f, As: "-" + ch}
				if f.Arg != NoArg {
					v, err := take("-" + ch)
					if err != nil {
						return nil, err
					}
					use.Value = v
				}
				a.Flags = append(a.Flags, use)
			}
		}
	}
	return a, nil
}
