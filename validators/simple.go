package validators

// Programs with no language of their own and no write channel: a flag table
// and "operands are files to read" (or text that is never opened).

const symlinkEscape = "follows symbolic links, which can lead out of the workspace"

// simpleSpecs are static data, laid out by the linker: registering them
// builds nothing.
var simpleSpecs = []*Spec{
	{Name: "cat", Doc: "files to read", Operands: ReadPaths, Flags: []Flag{
		{Short: "A", Long: "show-all"}, {Short: "b", Long: "number-nonblank"},
		{Short: "e"}, {Short: "E", Long: "show-ends"}, {Short: "n", Long: "number"},
		{Short: "s", Long: "squeeze-blank"}, {Short: "t"}, {Short: "T", Long: "show-tabs"},
		{Short: "u"}, {Short: "v", Long: "show-nonprinting"},
		{Long: "help"}, {Long: "version"},
	}},
	{Name: "head", Doc: "files to read", NumberShort: true, Operands: ReadPaths, Flags: []Flag{
		{Short: "c", Long: "bytes", Arg: Number}, {Short: "n", Long: "lines", Arg: Number},
		{Short: "q", Long: "quiet"}, {Long: "silent"}, {Short: "v", Long: "verbose"},
		{Short: "z", Long: "zero-terminated"}, {Long: "help"}, {Long: "version"},
	}},
	{Name: "tail", Doc: "files to read", NumberShort: true, Operands: ReadPaths, Flags: []Flag{
		{Short: "c", Long: "bytes", Arg: Number}, {Short: "n", Long: "lines", Arg: Number},
		{Short: "f"}, {Long: "follow", Arg: Text, Optional: true}, {Short: "F"},
		{Long: "max-unchanged-stats", Arg: Number}, {Long: "pid", Arg: Number},
		{Short: "q", Long: "quiet"}, {Long: "silent"}, {Long: "retry"},
		{Short: "s", Long: "sleep-interval", Arg: Text}, {Short: "v", Long: "verbose"},
		{Short: "z", Long: "zero-terminated"}, {Long: "help"}, {Long: "version"},
	}},
	{Name: "wc", Doc: "files to read", Operands: ReadPaths, Flags: []Flag{
		{Short: "c", Long: "bytes"}, {Short: "m", Long: "chars"}, {Short: "l", Long: "lines"},
		{Short: "L", Long: "max-line-length"}, {Short: "w", Long: "words"},
		{Long: "total", Arg: Text},
		{Long: "files0-from", Arg: Text, Forbid: "reads file names from a file, so vtexec cannot confine them"},
		{Long: "help"}, {Long: "version"},
	}},
	{Name: "ls", Doc: "files and directories to list", Operands: ReadPaths, Flags: []Flag{
		{Short: "a", Long: "all"}, {Short: "A", Long: "almost-all"}, {Long: "author"},
		{Short: "b", Long: "escape"}, {Long: "block-size", Arg: Text}, {Short: "B", Long: "ignore-backups"},
		{Short: "c"}, {Short: "C"}, {Long: "color", Arg: Text, Optional: true}, {Long: "colour", Arg: Text, Optional: true},
		{Short: "d", Long: "directory"}, {Short: "D", Long: "dired"}, {Short: "f"},
		{Short: "F"}, {Long: "classify", Arg: Text, Optional: true}, {Long: "file-type"},
		{Long: "format", Arg: Text}, {Long: "full-time"}, {Short: "g"},
		{Long: "group-directories-first"}, {Short: "G", Long: "no-group"},
		{Short: "h", Long: "human-readable"}, {Long: "si"},
		{Short: "H", Long: "dereference-command-line"}, {Long: "dereference-command-line-symlink-to-dir"},
		{Long: "hide", Arg: Text}, {Long: "hyperlink", Arg: Text, Optional: true},
		{Long: "indicator-style", Arg: Text}, {Short: "i", Long: "inode"},
		{Short: "I", Long: "ignore", Arg: Text}, {Short: "k", Long: "kibibytes"}, {Short: "l"},
		{Short: "L", Long: "dereference", Forbid: symlinkEscape},
		{Short: "m"}, {Short: "n", Long: "numeric-uid-gid"}, {Short: "N", Long: "literal"},
		{Short: "o"}, {Short: "p"}, {Short: "q", Long: "hide-control-chars"},
		{Long: "show-control-chars"}, {Short: "Q", Long: "quote-name"}, {Long: "quoting-style", Arg: Text},
		{Short: "r", Long: "reverse"}, {Short: "R", Long: "recursive"}, {Short: "s", Long: "size"},
		{Short: "S"}, {Long: "sort", Arg: Text}, {Long: "time", Arg: Text}, {Long: "time-style", Arg: Text},
		{Short: "t"}, {Short: "T", Long: "tabsize", Arg: Number}, {Short: "u"}, {Short: "U"},
		{Short: "v"}, {Short: "w", Long: "width", Arg: Number}, {Short: "x"}, {Short: "X"},
		{Short: "Z", Long: "context"}, {Long: "zero"}, {Short: "1"},
		{Long: "help"}, {Long: "version"},
	}},
	{Name: "tac", Doc: "files to read", Operands: ReadPaths, Flags: []Flag{
		{Short: "b", Long: "before"}, {Short: "r", Long: "regex"},
		{Short: "s", Long: "separator", Arg: Text}, {Long: "help"}, {Long: "version"},
	}},
	{Name: "numfmt", Doc: "numbers to format: text, never opened", Operands: Texts, Flags: []Flag{
		{Long: "debug"}, {Short: "d", Long: "delimiter", Arg: Text}, {Long: "field", Arg: Text},
		{Long: "format", Arg: Text}, {Long: "from", Arg: Text}, {Long: "from-unit", Arg: Number},
		{Long: "grouping"}, {Long: "header", Arg: Text, Optional: true}, {Long: "invalid", Arg: Text},
		{Long: "padding", Arg: Number}, {Long: "round", Arg: Text}, {Long: "suffix", Arg: Text},
		{Long: "unit-separator", Arg: Text}, {Long: "to", Arg: Text}, {Long: "to-unit", Arg: Number},
		{Short: "z", Long: "zero-terminated"}, {Long: "help"}, {Long: "version"},
	}},
	{Name: "pwd", Doc: "none", Flags: []Flag{
		{Short: "L", Long: "logical"}, {Short: "P", Long: "physical"}, {Long: "help"}, {Long: "version"},
	}},
	{Name: "which", Doc: "program names", Operands: Texts, Flags: []Flag{{Short: "a"}, {Short: "s"}}},
	{Name: "uname", Doc: "none", Flags: []Flag{
		{Short: "a", Long: "all"}, {Short: "s", Long: "kernel-name"}, {Short: "n", Long: "nodename"},
		{Short: "r", Long: "kernel-release"}, {Short: "v", Long: "kernel-version"}, {Short: "m", Long: "machine"},
		{Short: "p", Long: "processor"}, {Short: "i", Long: "hardware-platform"}, {Short: "o", Long: "operating-system"},
		{Long: "help"}, {Long: "version"},
	}},
	{Name: "nproc", Doc: "none", Flags: []Flag{
		{Long: "all"}, {Long: "ignore", Arg: Number}, {Long: "help"}, {Long: "version"},
	}},
	// sleep is bounded by the run's timeout like any command.
	{Name: "sleep", Doc: "durations (NUMBER[smhd]); the run's timeout bounds them", Operands: Durations, Flags: []Flag{
		{Long: "help"}, {Long: "version"},
	}},
	// gofmt parses options with Go's flag package. -w rewrites the files
	// in place: then they must be writable (checkGofmt).
	{Name: "gofmt", Doc: "Go files and directories to read; with -w, written", GoFlags: true, Operands: checkGofmt, Flags: []Flag{
		{Short: "l"}, {Short: "d"}, {Short: "e"}, {Short: "s"}, {Short: "r", Arg: Text}, {Short: "w"},
		{Short: "h"}, {Long: "help"},
	}},
	// df reports free space; a FILE operand names the file system that
	// holds it, so it must be inside the workspace like any path.
	{Name: "df", Doc: "files whose file system to report (at least one, inside the workspace)", Operands: SomeReadPaths, Flags: []Flag{
		{Short: "a", Long: "all"}, {Short: "B", Long: "block-size", Arg: Text},
		{Short: "h", Long: "human-readable"}, {Short: "H", Long: "si"}, {Short: "i", Long: "inodes"},
		{Short: "k"}, {Short: "l", Long: "local"}, {Long: "no-sync"}, {Long: "sync"},
		{Long: "output", Arg: Text, Optional: true}, {Short: "P", Long: "portability"},
		{Long: "total"}, {Short: "t", Long: "type", Arg: Text}, {Short: "T", Long: "print-type"},
		{Short: "x", Long: "exclude-type", Arg: Text}, {Short: "v"},
		{Long: "help"}, {Long: "version"},
	}},
	{Name: "printenv", Doc: "variable names", Operands: Texts, Flags: []Flag{
		{Short: "0", Long: "null"}, {Long: "help"}, {Long: "version"},
	}},
}

func registerSimple() {
	for _, s := range simpleSpecs {
		registerSpec(s)
	}
	// The checksum programs read their operands; --check reads a list of
	// file names from a file, names vtexec never sees, so it is refused.
	for _, name := range []string{"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum"} {
		registerSpec(&Spec{Name: name, Doc: "files to read", Operands: ReadPaths, Flags: []Flag{
			{Short: "b", Long: "binary"}, {Short: "t", Long: "text"}, {Long: "tag"},
			{Short: "z", Long: "zero"}, {Long: "help"}, {Long: "version"},
			{Short: "c", Long: "check", Forbid: "reads the names of the files to check from a file, so vtexec cannot confine them: hash the files by name and compare"},
		}})
	}
	// echo parses no options beyond -n -e -E and prints everything else,
	// including "--": every argument is text it only prints.
	register("echo", ValidatorFunc(func(*Call) error { return nil }), func() Entry {
		return Entry{Program: "echo", Operands: "text, printed; every argument is accepted (echo treats unknown flags as text)"}
	})
}
