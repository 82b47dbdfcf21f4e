package validators

import (
	"slices"
	"strings"
	"sync"
)

// Profile is what vtexec knows of a program, or of a shell builtin vtexec
// answers itself, besides its flags: the traits the other layers act on.
// They read them from here (or from the plan, where the checker copies
// them), never from a name compared elsewhere.
type Profile struct {
	// WritesGitDir: the program may write the git directory (its box
	// lets it, but for what configures git or runs code).
	WritesGitDir bool
	// ConfiguredByRepository: the program runs what the repository's
	// configuration names (hooks, filters, pagers) unless it runs with
	// vtexec's environment for it (progenv): only vtexec may run it.
	ConfiguredByRepository bool
	// GoToolchain: the program is Go's toolchain, which gets its preset
	// (the user's module cache read-only, no toolchain switching, no
	// proxy without a network rule).
	GoToolchain bool
	// RearrangesTree: the program moves or copies whole entries, links
	// included, so a path another command opens can lead somewhere new
	// once it ran.
	RearrangesTree bool
	// ReadsInputAsData: what is typed into the program is data to it,
	// never commands.
	ReadsInputAsData bool
	// RunsInputAsProgram: what the program reads on standard input is a
	// program it runs (or, for editors and database shells, commands
	// that include "run this shell command").
	RunsInputAsProgram bool
	// ProgramFromArgs, for an interpreter, reports whether argv names
	// the program it runs (a script file, or code given with -c/-e):
	// then standard input is data to it.
	ProgramFromArgs func(argv []string) bool
	// CopiesInput: with no arguments the program writes its standard
	// input out unchanged ("$(cat <<'EOF' …)" is the text).
	CopiesInput bool
	// PrintsCwd: with no arguments the program prints the working
	// directory ("$(pwd)" is $PWD).
	PrintsCwd bool
	// LeavesProcessGroup reports whether the program, called as argv,
	// puts itself in a process group of its own.
	LeavesProcessGroup func(argv []string) bool
	// SubcommandArgs returns the program's arguments from where its
	// subcommand words begin; nil: right after the name.
	SubcommandArgs func(args []string) []string
	// ProgramLookup, for a builtin that says where programs are, returns
	// the builtin's name as vtexec answers it for argv, or "" when argv
	// is not such a lookup.
	ProgramLookup func(argv []string) string
	// Unwrap, for a builtin that runs the command in its arguments,
	// returns that command (a *Finding when it cannot).
	Unwrap func(argv []string) ([]string, error)
	// VenvInterpreter: the program is an interpreter a virtual
	// environment links to (DIR/bin/python with DIR/pyvenv.cfg); run
	// under that link's name, it runs with the environment active.
	VenvInterpreter bool
	// NeedsNetwork reports whether the program, called with args (after
	// its global options), fetches from the network (npm install, pip
	// install, go mod download): it runs without it unless a person
	// grants it, and the question says so.
	NeedsNetwork func(args []string) bool
	// Approval is what a person's approval of the program covers (see
	// ApprovalShape); nil: its subcommand words, or its exact arguments.
	Approval *ApprovalShape
	// ShellScript, for a shell, returns SCRIPT when argv is exactly
	// `SHELL -c SCRIPT` (-l/--login allowed), which vtexec checks and
	// runs as SCRIPT itself, with no shell.
	ShellScript func(argv []string) (string, bool)
	// PythonProgram: the program is Python code, which imports modules
	// from PYTHONPATH before its own: a PYTHONPATH prefix makes it run
	// what is there, so it asks.
	PythonProgram bool
	// Inert: as a shell builtin, vtexec's interpreter runs it whatever
	// its words, for it only prints or tests (files inside the
	// workspace). The builtins only a shell has are the interpreter's
	// (interpreter.ShellState).
	Inert bool
	// Arities lists the spellings of the program's flags for the arity
	// probe; nil: its Spec's.
	Arities func() []FlagArity
	// Probe is how the arity probe runs the program.
	Probe ProbeRig
}

// Parser is the family of option parser a program has, which the arity
// probe (tests/arity) drives in its own way.
type Parser int

const (
	// GetoptParser: getopt_long, clap, Go's flag package: "-x W" and
	// "-x -- W" differ exactly when -x takes W.
	GetoptParser Parser = iota
	// GitParser: git's own options, then per subcommand parse-options
	// or the revision parser.
	GitParser
	// JQParser: the first word no option takes is the filter.
	JQParser
	// FindParser: leading options, start points, then an expression of
	// primaries.
	FindParser
)

// ProbeRig is what the arity probe gives a program besides the flag and
// its probe word.
type ProbeRig struct {
	Parser Parser
	// Before are words put before the flag, unless the flag is one of
	// Instead (cut needs a list, unless the flag is the list).
	Before, Instead []string
	// After are operands the program needs after the probe word.
	After []string
	// NoCount: "2" is not a neutral probe word (date reads it as a date).
	NoCount bool
}

// ProfileOf returns the profile of the program or builtin called name
// (a base name); the zero Profile for one vtexec knows nothing of.
func ProfileOf(name string) Profile {
	if p, ok := profileCache.Load(name); ok {
		return *p.(*Profile)
	}
	p, known := profileFor(name)
	if known {
		kept := p // p itself stays off the heap: most unknown names are asked once
		profileCache.Store(name, &kept)
	}
	return p
}

// profileCache holds the profiles put together so far: a process asks
// for the few programs it checks, not for all of them. Only names the
// tables hold are kept, so that a stream of unknown names (a server's,
// a check stream's) does not grow it.
var profileCache sync.Map

// shellProfiles: not on the allowlist, shells are refused but for
// `bash -c SCRIPT`.
var shellProfiles = map[string]Profile{
	"bash": {ShellScript: shellCScript},
	"sh":   {ShellScript: shellCScript},
}

// The programs, on the allowlist or not, whose input is data; the inert
// builtins; the interpreters whose input is a program.
var (
	readsInputAsData = sync.OnceValue(func() []string {
		return strings.Fields(`cat head tail grep egrep fgrep rg wc sort uniq tr cut nl rev fold od
			base64 md5sum sha1sum sha256sum sha512sum jq tee paste column expand unexpand tac`)
	})
	inertBuiltins      = strings.Fields(`echo printf true false test [ pwd`)
	venvInterpreters   = []string{"python", "pypy"}
	runsInputAsProgram = sync.OnceValue(func() []string {
		return strings.Fields(`python pypy node deno bun perl ruby php lua luajit Rscript R julia tclsh
			wish guile racket irb jshell sqlite mysql psql ed ex vi vim nvim dc`)
	})
)

// profileFor puts together the traits of the program or builtin called
// name from the tables that hold them; known says whether one did.
func profileFor(name string) (p Profile, known bool) {
	note := func(in bool) bool {
		known = known || in
		return in
	}
	p, ok := shellProfiles[name]
	note(ok)
	if i, found := slices.BinarySearchFunc(programs, name, func(e programEntry, n string) int { return strings.Compare(e.name, n) }); note(found) {
		p = programs[i].profile
	}
	if b, ok := builtinProfiles()[name]; note(ok) {
		p = b
	}
	if f, ok := networkUses()[name]; note(ok) {
		p.NeedsNetwork = f
	}
	if shape, ok := approvalShapes()[name]; note(ok) {
		a := shape()
		p.Approval = &a
	}
	if note(slices.Contains(readsInputAsData(), name)) {
		p.ReadsInputAsData = true
	}
	if note(slices.Contains(inertBuiltins, name)) {
		p.Inert = true
	}
	if note(slices.Contains(venvInterpreters, name)) {
		p.VenvInterpreter = true
	}
	if note(slices.Contains(runsInputAsProgram(), name)) {
		p.RunsInputAsProgram = true
	}
	if valued, ok := interpreterValued()[name]; note(ok) {
		p.ProgramFromArgs = programFromArgs(valued)
	}
	return p, known
}

// interpreterValued are, per interpreter, its options whose value is the
// next word; a word that names the program (-c, -e, -m, -p) counts as
// its program given.
var interpreterValued = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"python":  {"-W", "-X", "--check-hash-based-pycs"},
		"python3": {"-W", "-X", "--check-hash-based-pycs"},
		"node": {"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--title",
			"--redirect-warnings", "--env-file", "--watch-path", "--test-name-pattern", "--test-reporter",
			"--test-reporter-destination", "--test-concurrency", "--test-shard", "--test-skip-pattern"},
	}
})

// programFromArgs reports whether an interpreter's argv gives its
// program: code in an option, or a script operand other than "-".
func programFromArgs(valued []string) func([]string) bool {
	return func(argv []string) bool {
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case a == "-":
				return false
			case a == "--":
				return i+1 < len(argv) && argv[i+1] != "-"
			case slices.Contains([]string{"-c", "-m", "-e", "--eval", "-p", "--print"}, a):
				return true
			case slices.Contains(valued, a):
				i++
			case !strings.HasPrefix(a, "-"):
				return true
			}
		}
		return false
	}
}

// timeoutLeavesGroup: GNU timeout starts a process group of its own
// unless --foreground comes among its options.
func timeoutLeavesGroup(argv []string) bool {
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") {
			break
		}
		if a == "--foreground" {
			return false
		}
	}
	return true
}

// shellCScript returns SCRIPT of `SHELL [-l|--login] -c SCRIPT`.
func shellCScript(argv []string) (string, bool) {
	sawC := false
	for i := 1; i < len(argv); i++ {
		switch argv[i] {
		case "-c":
			sawC = true
		case "-l", "--login":
		case "-lc", "-cl":
			sawC = true
		default:
			if sawC && i == len(argv)-1 && !strings.HasPrefix(argv[i], "-") {
				return argv[i], true
			}
			return "", false
		}
	}
	return "", false
}

// builtinProfiles are the shell builtins vtexec carries out itself.
var builtinProfiles = sync.OnceValue(func() map[string]Profile {
	return map[string]Profile{
		// command -v NAME…, command -V NAME…: where programs are, from the
		// trusted PATH; command [-p] CMD ARG…: CMD ARG… (with no shell
		// functions or aliases to bypass, that is all command does).
		"command": {
			ProgramLookup: func(argv []string) string {
				if len(argv) >= 3 && (argv[1] == "-v" || argv[1] == "-V") {
					return "command " + argv[1]
				}
				return ""
			},
			Unwrap: func(argv []string) ([]string, error) {
				rest := argv[1:]
				for len(rest) > 0 && (rest[0] == "-p" || rest[0] == "--") {
					rest = rest[1:]
				}
				if len(rest) == 0 {
					return nil, refuse(CodeBadUsage, "name the command to run", "command: no command given")
				}
				if strings.HasPrefix(rest[0], "-") {
					return nil, refuse(CodeBadUsage, "use which NAME to find a program", "command %s is not supported", rest[0])
				}
				return rest, nil
			},
		},
		// type NAME…: where programs are.
		"type": {
			ProgramLookup: func(argv []string) string {
				if len(argv) >= 2 && !strings.HasPrefix(argv[1], "-") {
					return "type"
				}
				return ""
			},
		},
	}
})
