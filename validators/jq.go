package validators

import (
	"regexp"
	"sort"
	"strings"
)

// jq (1.6 and 1.7) filters JSON. Its language cannot write a file or run a
// program: the manual's I/O section lists input and inputs (which read the
// same files as jq itself), debug and stderr, and nothing else; there is no
// system, exec or file-writing builtin. What it can do is read:
//
//   - the operands after the filter are input files (with --args or
//     --jsonargs they are strings or JSON texts instead): confined;
//   - --slurpfile, --rawfile and --argfile NAME FILE read FILE: confined;
//   - -L DIR adds a module directory: confined;
//   - import and include directives load .jq modules and .json data from a
//     search path that the directive itself can set ({search: "/home"}),
//     so "import \"x\" as $x {search: \"~\"}" reads ~/x.json: refused. A
//     directive can only open a program, so looking at the first token of
//     the filter finds every one; modulemeta, which loads a module by
//     name, is refused wherever it appears;
//   - -f/--from-file takes the filter from a file that jq reads when it
//     runs, after vtexec checked it, and jq has no sandbox mode that
//     would refuse import in it: refused (pass the filter inline).
//
// jq parses its own command line (main.c), not with getopt: short options
// stack (-nr), a long option is the whole word (no --name=value), --arg
// and friends take the next two words whatever they look like, and a word
// is an option only if it is "-" followed by "-" or a letter (so -1 and "-"
// are operands). That parser is reproduced here. $ENV and env show the
// environment, which the runner scrubs.

// jqOption is one command-line option of jq.
type jqOption struct {
	short  byte   // 0 if none
	long   string // without "--"; "" if none
	values int    // words taken after it: 0, 1 or 2
	file   bool   // its last value is a file jq reads
	mode   jqMode // --args and --jsonargs: what later operands are
	forbid string
	doc    string // its values, for the catalogue
}

// jqMode says what the operands after the filter are.
type jqMode int

const (
	jqFiles   jqMode = iota // input files (the default)
	jqStrings               // --args: strings
	jqJSON                  // --jsonargs: JSON texts
)

const jqFromFile = "reads the filter from a file when jq runs, after vtexec checked it, and jq has no mode that refuses import in it"

var jqOptions = []jqOption{
	{short: 's', long: "slurp"}, {short: 'r', long: "raw-output"}, {long: "raw-output0"},
	{short: 'j', long: "join-output"}, {short: 'a', long: "ascii-output"},
	{short: 'c', long: "compact-output"}, {short: 'C', long: "color-output"},
	{short: 'M', long: "monochrome-output"}, {short: 'S', long: "sort-keys"},
	{long: "tab"}, {long: "indent", values: 1, doc: "N"}, {long: "unbuffered"},
	{short: 'R', long: "raw-input"}, {short: 'n', long: "null-input"},
	{long: "stream"}, {long: "stream-errors"}, {long: "seq"},
	{short: 'e', long: "exit-status"},
	{long: "arg", values: 2, doc: "NAME VALUE"}, {long: "argjson", values: 2, doc: "NAME JSON"},
	{long: "slurpfile", values: 2, file: true, doc: "NAME FILE(read, confined)"},
	{long: "rawfile", values: 2, file: true, doc: "NAME FILE(read, confined)"},
	{long: "argfile", values: 2, file: true, doc: "NAME FILE(read, confined)"},
	{long: "args", mode: jqStrings}, {long: "jsonargs", mode: jqJSON},
	{short: 'L', long: "library-path", values: 1, file: true, doc: "DIR(read, confined)"},
	{long: "debug-dump-disasm"}, {long: "debug-trace"}, {long: "debug-trace=all"},
	{short: 'h', long: "help"}, {short: 'V', long: "version"}, {long: "build-configuration"},
	{short: 'f', long: "from-file", forbid: jqFromFile},
	{long: "run-tests", forbid: "runs jq's test-file format, whose programs vtexec does not check"},
}

// jqShort and jqLong index jqOptions; registerJq fills them.
var (
	jqShort map[byte]*jqOption
	jqLong  map[string]*jqOption
)

func registerJq() {
	jqShort, jqLong = map[byte]*jqOption{}, map[string]*jqOption{}
	for i := range jqOptions {
		o := &jqOptions[i]
		if o.short != 0 {
			jqShort[o.short] = o
		}
		if o.long != "" {
			jqLong[o.long] = o
		}
	}
	register("jq", ValidatorFunc(checkJq), jqEntry)
}

func jqEntry() Entry {
	e := Entry{Program: "jq", Operands: "FILTER (inline; import/include/module and modulemeta refused) then input files, read and confined; with --args or --jsonargs the rest are strings or JSON texts"}
	for _, o := range jqOptions {
		name := "--" + o.long
		if o.short != 0 {
			name = "-" + string(o.short) + "/" + name
		}
		if o.doc != "" {
			name += " " + o.doc
		}
		if o.forbid != "" {
			e.Refused = append(e.Refused, Refusal{Flag: name, Reason: o.forbid})
		} else {
			e.Allowed = append(e.Allowed, name)
		}
	}
	sort.Strings(e.Allowed)
	sort.Slice(e.Refused, func(i, j int) bool { return e.Refused[i].Flag < e.Refused[j].Flag })
	return e
}

// jqOptish is jq's isoptish: "-" then "-" or a letter.
func jqOptish(w string) bool {
	return len(w) >= 2 && w[0] == '-' && (w[1] == '-' || ('a' <= w[1] && w[1] <= 'z') || ('A' <= w[1] && w[1] <= 'Z'))
}

// checkJq walks a jq command line as jq's main does.
func checkJq(c *Call) error {
	args := c.Argv[1:]
	var filter string
	haveFilter, done := false, false
	mode := jqFiles
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case done || !jqOptish(w):
			switch {
			case !haveFilter:
				filter, haveFilter = w, true
			case mode == jqFiles:
				if err := c.ReadPath(w, true); err != nil {
					return err
				}
			}
		case w == "--":
			// jq 1.7 takes a filter after "--"; 1.6 refuses "--" before one.
			done = true
		case strings.HasPrefix(w, "--"):
			o, ok := jqLong[w[2:]]
			if !ok {
				return jqUnknown(w)
			}
			n, err := jqApply(c, o, w, args[i+1:])
			if err != nil {
				return err
			}
			i += n
			if o.mode != jqFiles {
				mode = o.mode
			}
		default:
			// A cluster of short options; -L takes the rest of the word, or
			// the next word.
			for j := 1; j < len(w); j++ {
				o, ok := jqShort[w[j]]
				if !ok {
					return jqUnknown("-" + w[j:j+1])
				}
				if o.values == 0 {
					if _, err := jqApply(c, o, "-"+w[j:j+1], nil); err != nil {
						return err
					}
					continue
				}
				rest := args[i+1:]
				if attached := w[j+1:]; attached != "" {
					rest = []string{attached}
				} else {
					i++
				}
				if _, err := jqApply(c, o, "-"+w[j:j+1], rest); err != nil {
					return err
				}
				break
			}
		}
	}
	if !haveFilter {
		return nil // jq runs "." on standard input, or prints its usage
	}
	return checkJqFilter(filter)
}

func jqUnknown(as string) error {
	var names []string
	for _, o := range jqOptions {
		if o.forbid == "" {
			if o.short != 0 {
				names = append(names, "-"+string(o.short))
			}
			names = append(names, "--"+o.long)
		}
	}
	sort.Strings(names)
	return refuse(CodeUnknownFlag, "allowed flags for jq: "+quoteList(names), "jq: unknown flag %s", as)
}

// jqApply checks one option written as as, whose values are the first
// words of rest, and returns how many words of rest it took.
func jqApply(c *Call, o *jqOption, as string, rest []string) (int, error) {
	if o.forbid != "" {
		return 0, refuse(CodeForbiddenFlag, jqHint(o), "jq %s is refused: %s", as, o.forbid)
	}
	if len(rest) < o.values {
		return 0, refuse(CodeBadUsage, "give "+as+" its values: "+as+" "+o.doc, "jq: %s needs %d value(s)", as, o.values)
	}
	if o.file {
		if err := c.ReadPath(rest[o.values-1], false); err != nil {
			return 0, err
		}
	}
	return o.values, nil
}

func jqHint(o *jqOption) string {
	if o.short == 'f' {
		return "pass the filter inline as the first operand: jq 'FILTER' FILE..."
	}
	return "drop --" + o.long + "; jq may not use it"
}

// jqDirectives are the keywords that can only start a program and load
// modules or data from files.
var jqDirectives = &lazy[map[string]bool]{make: func() map[string]bool { return map[string]bool{"import": true, "include": true, "module": true} }}

// jqModulemeta finds the modulemeta builtin as a word.
var jqModulemeta = &lazy[*regexp.Regexp]{make: func() *regexp.Regexp { return regexp.MustCompile(`(^|[^A-Za-z0-9_])modulemeta([^A-Za-z0-9_]|$)`) }}

// checkJqFilter refuses a filter that loads modules or data from files.
// jq's grammar allows module, import and include only before everything
// else in a program, so the first token decides.
func checkJqFilter(filter string) error {
	if jqModulemeta.get().MatchString(filter) {
		return refuse(CodeForbiddenFlag, "drop modulemeta; vtexec refuses jq modules",
			"jq: modulemeta loads a module file from the library search path, which can be outside the workspace")
	}
	first, err := jqFirstToken(filter)
	if err != nil {
		return err
	}
	if jqDirectives.get()[first] {
		return refuse(CodeForbiddenFlag, "write the definitions in the filter (def f: ...;) and pass data with --slurpfile NAME FILE or --rawfile NAME FILE",
			"jq: %s loads .jq or .json files from a search path the filter can set, outside the workspace", first)
	}
	return nil
}

// jqFirstToken returns the first word of a jq program, skipping blanks and
// comments, or "" when it does not start with a word. jq versions disagree
// on comments: 1.6 ends one at a newline, later versions at a carriage
// return too, and 1.7.1 continues one past a newline after a backslash; a
// comment that the versions would read differently is refused.
func jqFirstToken(p string) (string, error) {
	i := 0
	for i < len(p) {
		switch ch := p[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v':
			i++
		case ch == '#':
			comment := p[i:]
			if nl := strings.IndexByte(comment, '\n'); nl >= 0 {
				comment = comment[:nl]
			}
			trailing := len(comment) - len(strings.TrimRight(comment, `\`))
			if strings.IndexByte(comment, '\r') >= 0 || trailing%2 == 1 {
				return "", refuse(CodeBadUsage, "end the comment without a backslash or carriage return, or drop it",
					"jq: a comment before the filter that ends in a backslash or holds a carriage return is read differently by different jq versions")
			}
			i += len(comment)
		case ch >= 0x80:
			// jq's lexer rejects it; refused in case some version skips it
			// (a byte order mark) and reads a directive after it.
			return "", refuse(CodeBadUsage, "start the filter with ASCII", "jq: the filter starts with a non-ASCII byte")
		default:
			j := i
			for j < len(p) && (p[j] == '_' || ('a' <= p[j] && p[j] <= 'z') || ('A' <= p[j] && p[j] <= 'Z') || ('0' <= p[j] && p[j] <= '9')) {
				j++
			}
			return p[i:j], nil
		}
	}
	return "", nil
}
