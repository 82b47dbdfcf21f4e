package validators

import (
	"slices"
	"strings"
	"sync"
)

// ApprovalShape is what a person's approval of a program covers: the
// words that name what runs (a subcommand, a script, a target, a tool, a
// package, a module), every flag that changes what the command does, and
// the operands — no more (npm run build after npm run test asks, and so
// do --write after --check, --amend after commit, a new package), and no
// less (a flag that only changes how the program reports, or another
// test path, does not ask again).
type ApprovalShape struct {
	// Words splits the positional arguments (flags and their values set
	// apart) into the words that name what runs and the operands.
	Words func(positional []string) (words, operands []string)
	// Reporting are flags that only change how the program reports
	// (-q, --silent, -v): an approval holds whichever of them are given.
	// "--x" also stands for "--x=VALUE".
	Reporting []string
	// Valued are flags that take the next argument as their value when
	// it is not attached ("--loglevel silent"); FreeValued are those
	// whose value is free text (a commit message, a test filter): only
	// the flag counts; NumericValued take the next argument only when it
	// is a number (make -j 4, make -j test).
	Valued, FreeValued, NumericValued []string
	// Module is the flag after which a module names what runs and the
	// rest are the module's arguments (python -m pytest -q); Inner is
	// the shape of a module's arguments, if vtexec knows it.
	Module string
	Inner  func(module string) (ApprovalShape, bool)
	// FreeOperands reports whether, for these words, the operands only
	// select what to work on or report (test paths): an approval then
	// holds for other operands.
	FreeOperands func(words []string) bool
	// FreeWith are flags that, given, make the operands free (node
	// --test: they are the test files to run).
	FreeWith []string
	// Binds reports whether, for these words, what runs is decided by
	// files of the project (package.json's scripts, the Makefile): the
	// approval is then bound to them (see Binding).
	Binds func(words []string) bool
}

// Approval is an argument list in the terms of its program's shape.
type Approval struct {
	Words []string
	// Flags are the flags that change what the command does, sorted,
	// each with its value ("--save-dev", "--tag=x"); a free value is left
	// out.
	Flags []string
	// Operands are the other arguments in order, and after "--" what
	// goes to the script or tool; nil with AnyOperands.
	Operands    []string
	AnyOperands bool
	Binds       bool
}

// ShapeOf returns the approval shape of the program called name, if it
// has one.
func ShapeOf(name string) (ApprovalShape, bool) {
	if s := ProfileOf(name).Approval; s != nil {
		return *s, true
	}
	return ApprovalShape{}, false
}

// Approve puts args (the program's arguments after its global options)
// in the terms of the shape.
func (s ApprovalShape) Approve(args []string) Approval {
	a := Approval{Flags: []string{}, Operands: []string{}}
	var positional, passed []string
	valued := func(name string) bool { return slices.Contains(s.Valued, name) || slices.Contains(s.FreeValued, name) }
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			passed = args[i:]
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			positional = append(positional, arg)
			continue
		}
		if arg == s.Module && s.Module != "" && i+1 < len(args) {
			module := args[i+1]
			if s.Inner != nil {
				if inner, ok := s.Inner(module); ok {
					in := inner.Approve(args[i+2:])
					in.Words = append([]string{s.Module, module}, in.Words...)
					in.Flags = mergeSorted(in.Flags, a.Flags)
					return in
				}
			}
			a.Words = []string{s.Module, module}
			a.Operands = append(a.Operands, args[i+2:]...)
			slices.Sort(a.Flags)
			return a
		}
		name, value, attached := strings.Cut(arg, "=")
		if !attached && len(name) > 2 && name[1] != '-' {
			// -mMSG, -j4: a valued short flag with its value attached.
			for _, f := range slices.Concat(s.Valued, s.FreeValued, s.NumericValued) {
				if len(f) == 2 && strings.HasPrefix(name, f) {
					name, value, attached = f, name[2:], true
					break
				}
			}
		}
		if !attached && i+1 < len(args) && (valued(name) || slices.Contains(s.NumericValued, name) && isDigits(args[i+1])) {
			i++
			value, attached = args[i], true
		}
		switch {
		case slices.Contains(s.Reporting, name):
		case slices.Contains(s.FreeValued, name):
			a.Flags = append(a.Flags, name)
		case attached:
			a.Flags = append(a.Flags, name+"="+value)
		default:
			a.Flags = append(a.Flags, name)
		}
	}
	slices.Sort(a.Flags)
	a.Flags = slices.Compact(a.Flags)
	words, operands := s.Words(positional)
	a.Words = words
	a.Operands = append(append(a.Operands, operands...), passed...)
	if s.FreeOperands != nil && s.FreeOperands(words) || slices.ContainsFunc(s.FreeWith, func(f string) bool { return slices.Contains(a.Flags, f) }) {
		a.Operands, a.AnyOperands = nil, true
	}
	a.Binds = s.Binds != nil && s.Binds(words)
	return a
}

func mergeSorted(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// Covers reports whether an approval recorded as a covers b.
func (a Approval) Covers(b Approval) bool {
	if !slices.Equal(a.Words, b.Words) || !slices.Equal(a.Flags, b.Flags) {
		return false
	}
	return a.AnyOperands || slices.Equal(a.Operands, b.Operands)
}

// npxPathTools are tools whose operands are the files they read, check
// or format.
var npxPathTools = []string{"prettier", "eslint", "tsc", "jest", "vitest", "mocha", "stylelint", "biome"}

// npmWords: a subcommand and, for run and exec, the script or tool; npm
// test and npm start are npm run test and npm run start, and run's other
// names are run.
func npmWords(pos []string) ([]string, []string) {
	if len(pos) > 0 {
		switch pos[0] {
		case "test", "t", "tst", "start":
			name := pos[0]
			if name != "start" {
				name = "test"
			}
			return []string{"run", name}, pos[1:]
		case "run-script", "rum", "urn":
			pos = append([]string{"run"}, pos[1:]...)
		}
	}
	return subcommandThen("run", "exec", "x")(pos)
}

// firstWords: the first n positional arguments name what runs.
func firstWords(n int) func([]string) ([]string, []string) {
	return func(pos []string) ([]string, []string) {
		n := min(n, len(pos))
		return pos[:n:n], pos[n:]
	}
}

// subcommandThen: a subcommand and, for the subcommands in more, the
// word after it (npm run SCRIPT, npm exec TOOL).
func subcommandThen(more ...string) func([]string) ([]string, []string) {
	return func(pos []string) ([]string, []string) {
		if len(pos) >= 2 && slices.Contains(more, pos[0]) {
			return pos[:2:2], pos[2:]
		}
		return firstWords(1)(pos)
	}
}

// allWords: every positional argument that is not a variable
// assignment names what runs (make's targets).
func allWords(pos []string) ([]string, []string) {
	var words, rest []string
	for _, a := range pos {
		if strings.Contains(a, "=") {
			rest = append(rest, a)
		} else {
			words = append(words, a)
		}
	}
	return words, rest
}

// noWords: what runs is the program itself (pytest); every positional
// argument is an operand.
func noWords(pos []string) ([]string, []string) { return nil, pos }

func among(list ...string) func([]string) bool {
	return func(words []string) bool { return len(words) > 0 && slices.Contains(list, words[0]) }
}

func always([]string) bool { return true }

// The shapes of the script runners, installers and tools a person
// approves: part of their profiles (see profileFor), each made when its
// program's profile is.
var approvalShapes = sync.OnceValue(func() map[string]func() ApprovalShape {
	return map[string]func() ApprovalShape{
		"npm": npmShape, "pnpm": yarnLikeShape, "yarn": yarnLikeShape, "bun": yarnLikeShape,
		"npx":  npxShape,
		"node": nodeShape,
		"make": makeShape, "gmake": makeShape,
		"just":  justShape,
		"cargo": cargoShape,
		"pip":   pipShape, "pip3": pipShape,
		"python": pythonShape, "python3": pythonShape,
		"pytest": pytestShape,
		"git":    gitShape,
	}
})

var (
	npmReporting = []string{"--silent", "-s", "--quiet", "-q", "--loglevel", "--verbose", "-d", "-dd", "--color", "--no-color", "--progress", "--no-progress", "--json", "--parseable", "--no-fund", "--no-audit", "--foreground-scripts"}
	npmScripts   = []string{"run", "run-script", "rum", "urn", "test", "t", "tst", "start", "stop", "restart", "install", "i", "add", "ci"}
)

func npmShape() ApprovalShape {
	return ApprovalShape{
		Words:     npmWords,
		Reporting: npmReporting,
		Valued:    []string{"--loglevel", "-w", "--workspace", "--prefix"},
		Binds:     among(npmScripts...),
	}
}

func yarnLikeShape() ApprovalShape {
	return ApprovalShape{Words: subcommandThen("run", "exec", "dlx"), Reporting: npmReporting, Binds: among(npmScripts...)}
}

// A tool's paths select what it reads or formats: another path is the
// same use; another flag (--write after --check) is not.
func npxShape() ApprovalShape {
	return ApprovalShape{Words: firstWords(1), Reporting: []string{"--quiet", "-q", "--silent"}, FreeOperands: among(npxPathTools...)}
}

// node FILE ARGS is approved for its exact arguments; node --test runs
// the test files it is given, as a test runner does.
func nodeShape() ApprovalShape {
	return ApprovalShape{Words: noWords, FreeWith: []string{"--test"},
		Reporting: []string{"--test-name-pattern", "--test-skip-pattern", "--test-only", "--test-reporter", "--test-concurrency", "--test-timeout", "--test-force-exit", "--no-warnings"},
		Valued:    []string{"--test-name-pattern", "--test-skip-pattern", "--test-reporter", "--test-concurrency", "--test-timeout"}}
}

func pytestShape() ApprovalShape {
	return ApprovalShape{
		Words: noWords,
		// Which tests run (-k, -m, paths) and how they report: a test
		// run is a test run.
		Reporting: []string{"-q", "--quiet", "-v", "--verbose", "-vv", "-vvv", "-s", "--capture", "--tb", "-r", "-ra", "-rA", "--no-header", "--color", "--durations", "-x", "--exitfirst", "--lf", "--ff", "--last-failed", "--failed-first", "-k", "-m",
			// How many at once (pytest-xdist), when to stop, collecting only.
			"-n", "--numprocesses", "--dist", "--maxfail", "--co", "--collect-only", "-l", "--showlocals", "--disable-warnings", "--no-summary"},
		Valued:       []string{"--tb", "--color", "--durations", "-r", "-k", "-m", "--capture", "-n", "--numprocesses", "--dist", "--maxfail"},
		FreeOperands: always,
	}
}

func pythonShape() ApprovalShape {
	return ApprovalShape{
		// python -m MODULE: the module names what runs; a script is
		// approved for its exact arguments.
		Words:  noWords,
		Module: "-m",
		Inner: func(module string) (ApprovalShape, bool) {
			return pytestShape(), module == "pytest" || module == "unittest"
		},
	}
}

func cargoShape() ApprovalShape {
	return ApprovalShape{
		Words: firstWords(1),
		// How it reports, the build profile, and which of the package's
		// targets are built or tested: the same code runs.
		Reporting: []string{"-q", "--quiet", "-v", "--verbose", "-vv", "--color", "--message-format", "-j", "--jobs",
			"--release", "-r", "--all-targets", "--lib", "--bins", "--tests", "--benches", "--examples", "--doc",
			"--test", "--no-run", "--no-fail-fast", "--keep-going", "--offline", "--frozen", "--locked"},
		Valued: []string{"--color", "--message-format", "-p", "--package", "--bin", "--example", "--test", "--features", "-F", "--target", "--profile", "-j", "--jobs"},
		// A test run's selection, and clippy's lint levels after --.
		FreeOperands: among("test", "t", "bench", "clippy"),
	}
}

func pipShape() ApprovalShape {
	return ApprovalShape{
		Words:     firstWords(1),
		Reporting: []string{"-q", "--quiet", "-v", "--verbose", "--no-color", "--progress-bar", "--disable-pip-version-check", "--no-input"},
		Valued:    []string{"--progress-bar", "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target"},
	}
}

func gitShape() ApprovalShape {
	return ApprovalShape{
		Words:      firstWords(1),
		Reporting:  []string{"-q", "--quiet", "-v", "--verbose", "--progress", "--no-progress"},
		Valued:     []string{"-C", "-c", "--author", "--date", "--cleanup", "-u", "--untracked-files"},
		FreeValued: []string{"-m", "--message", "-F", "--file"},
	}
}

// make's targets name what runs; -j only how many at once.
func makeShape() ApprovalShape {
	return ApprovalShape{Words: allWords, Binds: always,
		Reporting:     []string{"-s", "--silent", "--quiet", "--no-print-directory", "-w", "--print-directory", "-j", "--jobs"},
		Valued:        []string{"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-o", "--old-file", "-W", "--what-if", "--assume-new", "--new-file"},
		NumericValued: []string{"-j", "-l"},
	}
}

func justShape() ApprovalShape {
	return ApprovalShape{Words: firstWords(1), Reporting: []string{"-q", "--quiet", "-v", "--verbose"}, Binds: always}
}
