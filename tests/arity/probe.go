package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/vtexec/vtexec/validators"
)

// probe observes one spelling and compares it with the spec.
func (p *prober) probe(fa validators.FlagArity) result {
	r := result{fa: fa, says: saysText(fa)}
	if reason := skipReason(fa); reason != "" {
		r.outcome, r.does = skipped, reason
		return r
	}
	var sep observation
	switch fa.Probe.Parser {
	case validators.GitParser:
		sep = p.gitSeparate(fa)
	case validators.JQParser:
		words := []string{"PROBEa", "PROBEb", "PROBEc"}
		if fa.Name == "--argjson" {
			words[1] = "1" // a JSON text
		}
		sep = p.firstOperand(fa, []string{fa.Program}, words, jqOperand)
	case validators.FindParser:
		sep = p.findSeparate(fa)
	default:
		sep = p.dashdash(fa)
	}
	switch {
	case sep.unknown:
		r.outcome, r.does, r.evidence = unknownFlag, "does not know it", sep.evidence
		return r
	case sep.next < 0:
		r.outcome, r.does, r.evidence = inconclusive, "gave no readable answer", sep.evidence
		return r
	}
	r.does = fmt.Sprintf("takes %d following word(s)", sep.next)
	r.evidence = sep.evidence
	r.outcome = agree
	if sep.next != fa.Next {
		r.outcome = disagree
	}
	if fa.Probe.Parser == validators.GitParser && fa.Next == 1 && gitFirstPass[strings.Join(fa.Sub, " ")] {
		// git log reads its own options (--source, --decorate, -L, ...)
		// in a first pass over every word, values included.
		x := p.exec(cat(gitArgv(fa), []string{spelling(fa), "--source"})...)
		if strings.Contains(x.out(), "requires a value") || strings.Contains(x.out(), "requires an argument") {
			r.stolen = true
			r.evidence += " | " + x.brief()
		}
	}
	// The attached forms.
	att := p.attached(fa, sep.next)
	if att != nil {
		r.does += "; " + att.does
		if !att.readable {
			if r.outcome == agree {
				r.outcome = inconclusive
			}
			r.evidence += " | " + att.evidence
		} else if att.attaches != fa.Attach {
			r.outcome = disagree
			r.evidence += " | " + att.evidence
		}
	}
	// vtexec never passes this value as a separate word (see
	// validators.Canonical): where the program reads the attached value
	// as the spec does, how it would read a separate one does not matter.
	if r.outcome == disagree && fa.Next == 1 && fa.Attach && canonicallyAttached(fa) && att != nil && att.readable && att.attaches {
		r.outcome, r.canonical = agree, true
		r.does += " (vtexec passes the value attached)"
	}
	if r.stolen && canonicallyAttached(fa) {
		r.stolen = false // attached, git's first pass reads the value as a value
	}
	return r
}

// canonicallyAttached reports whether vtexec runs fa's value attached to
// it: git's subcommand options, and the long options of programs
// validated by a spec.
func canonicallyAttached(fa validators.FlagArity) bool {
	if fa.Probe.Parser == validators.GitParser {
		return len(fa.Sub) > 0
	}
	if !strings.HasPrefix(fa.Name, "--") {
		return false
	}
	v, ok := validators.Lookup(fa.Program)
	_, isSpec := v.(*validators.Spec)
	return ok && isSpec
}

// saysText is what the spec says about a spelling.
func saysText(fa validators.FlagArity) string {
	s := fmt.Sprintf("takes %d following word(s)", fa.Next)
	if isShort(fa) || fa.Attach {
		if fa.Attach {
			s += ", value may be attached"
		} else {
			s += ", nothing attached"
		}
	}
	if fa.Forbid != "" {
		s += " (refused)"
	}
	return s
}

func isShort(fa validators.FlagArity) bool {
	return len(fa.Name) == 2 && fa.Name[0] == '-' && fa.Name[1] != '-'
}

// spelling is the word to write for the flag.
func spelling(fa validators.FlagArity) string {
	switch {
	case fa.Name == "-NUM":
		return "-2"
	case fa.Probe.Parser == validators.FindParser && fa.Name == "-O":
		return "-O1" // its level is always attached
	}
	return fa.Name
}

// observation is what the separate-word probe saw.
type observation struct {
	next     int // words the program took as values; -1 if unreadable
	unknown  bool
	evidence string
}

// dashdash is the probe for getopt-like programs: "PROG FLAG W" and
// "PROG FLAG -- W" do the same when the flag takes no following word
// (W is an operand either way), and differ when it takes one (W, or
// "--", is its value). W is tried as a missing file, as "2" (a valid
// count and an existing file) and as a valid value where one is known.
func (p *prober) dashdash(fa validators.FlagArity) observation {
	words := []string{"PROBEw"}
	if !fa.Probe.NoCount {
		words = append(words, "2")
	}
	if v, ok := validValues[fa.Program+" "+fa.Name]; ok {
		words = append(words, v)
	}
	pre, post := prefix(fa), fa.Probe.After
	var last run
	for _, w := range words {
		x := p.exec(cat([]string{fa.Program}, pre, []string{spelling(fa), w}, post)...)
		if knowsNot(x, fa) {
			return observation{unknown: true, evidence: x.brief()}
		}
		y := p.exec(cat([]string{fa.Program}, pre, []string{spelling(fa), "--", w}, post)...)
		if !p.differ(x, y) {
			last = x
			continue
		}
		return observation{next: 1, evidence: x.brief() + " ≠ " + y.brief()}
	}
	return observation{next: 0, evidence: last.brief() + " = the same with --"}
}

// differ reports whether two runs differ other than in numbers: inodes,
// times and durations change from one run to the next, and so does the
// padding around a number aligned in a column (flake8 -v's milliseconds
// since start, "  95" and " 109"; stat's inode, "Inode: 737         Links"
// and "Inode: 1024        Links"); a flag that takes the word after it
// changes more than numbers.
func (p *prober) differ(x, y run) bool {
	return !x.same(y) && masked(x) != masked(y)
}

var digits = regexp.MustCompile(`[ \t]*(?:0x[0-9a-f]+|[0-9]+)[ \t]*`)

func masked(r run) string {
	return fmt.Sprintf("%d %v %s\x00%s", r.exit, r.timedOut, digits.ReplaceAllString(r.stdout, "N"), digits.ReplaceAllString(r.stderr, "N"))
}

// firstOperand runs PROG [pre] FLAG W1 W2 W3 and finds the first Wi the
// program reads as an operand (isOperand); the flag took the i-1 before.
func (p *prober) firstOperand(fa validators.FlagArity, pre, words []string, isOperand func(out, w string) bool) observation {
	x := p.exec(cat(pre, []string{spelling(fa)}, words)...)
	if knowsNot(x, fa) {
		return observation{unknown: true, evidence: x.brief()}
	}
	for i, w := range words {
		if isOperand(x.out(), w) {
			return observation{next: i, evidence: x.brief()}
		}
	}
	if valueSeen(x.out(), fa, words[0]) {
		return observation{next: 1, evidence: x.brief()}
	}
	return observation{next: -1, evidence: x.brief()}
}

// valueSeen reports whether the program complained about w (or about a
// missing number or character) as the value of the flag: it took w.
func valueSeen(out string, fa validators.FlagArity, w string) bool {
	bare := strings.TrimLeft(spelling(fa), "-")
	for _, m := range []string{
		"`" + bare + "' expects", bare + " expects a", "' expects a ", "option " + bare + " accepts", "after " + bare + "=",
		"'" + w + "'", " " + w + "\n", " " + w + " ", "=" + w,
	} {
		if strings.Contains(out, m) {
			return true
		}
	}
	return strings.HasSuffix(strings.TrimSpace(out), " "+w)
}

func jqOperand(out, w string) bool { return strings.Contains(out, w+"/0 is not defined") }

// findSeparate probes find's leading options (the next words are start
// points) and its primaries (the word after the expression's arguments
// is a stray path).
func (p *prober) findSeparate(fa validators.FlagArity) observation {
	switch fa.Name {
	case "-H", "-P", "-L", "-D", "-O":
		return p.firstOperand(fa, []string{fa.Program}, []string{"PROBEx1", "PROBEx2", "PROBEx3"}, func(out, w string) bool {
			return strings.Contains(out, "'"+w+"': No such file or directory")
		})
	}
	words := []string{"PROBEa", "PROBEb", "PROBEc"}
	if v, ok := validValues["find "+fa.Name]; ok {
		words[0] = v
	}
	return p.firstOperand(fa, []string{fa.Program, "."}, words, func(out, w string) bool {
		return strings.Contains(out, "paths must precede expression: `"+w+"'")
	})
}

// knowsNot reports whether a run refused the spelling as an unknown
// option, in the words of getopt, clap, tree, jq, find or git.
func knowsNot(r run, fa validators.FlagArity) bool {
	if r.exit == -1 && !r.timedOut {
		return true // killed by a signal: the program crashed on the spelling
	}
	out := r.out()
	name := spelling(fa)
	bare := strings.TrimLeft(name, "-")
	for _, m := range []string{
		"unrecognized option '" + name + "'", "unrecognized option '" + name + "='",
		"invalid option -- '" + bare + "'",
		"Found argument '" + name + "' which wasn't expected",
		"Invalid argument `" + name + "'", "Invalid argument -`" + bare + "'",
		"Unknown option " + name, "unknown predicate `" + name + "'",
		"unknown option `" + bare + "'", "unknown switch `" + bare + "'",
		"unrecognized argument: " + name, "unknown option: " + name, "unknown option `" + name + "'",
		"unrecognized option: '" + name + "'", "does not expect negation", goUnknown + name + "\n",
	} {
		if strings.Contains(out, m) {
			return true
		}
	}
	return false
}

// attachment is what the attached-value probe saw.
type attachment struct {
	readable bool
	attaches bool
	does     string
	evidence string
}

// attached probes "-xVALUE" for every short spelling (an attached value,
// or a cluster of flags?) and "--name=VALUE" for long ones whose value
// may be attached; next is what the separate-word probe saw. It returns
// nil when there is nothing to probe.
func (p *prober) attached(fa validators.FlagArity, next int) *attachment {
	if fa.Name == "-NUM" || fa.Probe.Parser == validators.FindParser {
		return nil // -2 and find's -O1 are whole words; find's primaries stand alone
	}
	if fa.Probe.Parser == validators.GitParser && len(fa.Sub) == 0 {
		if !fa.Attach {
			return nil // git's own short options stand alone
		}
		// git's own long options: --name=VALUE, then the subcommand.
		x := p.exec(fa.Program, fa.Name+"=PROBEd", "PROBEb")
		a := &attachment{readable: true, attaches: !strings.Contains(x.out(), "unknown option: "+fa.Name), evidence: x.brief()}
		a.does = "reads " + fa.Name + "=VALUE as the value"
		if !a.attaches {
			a.does = "does not read " + fa.Name + "=VALUE"
		}
		return a
	}
	var argv []string
	switch {
	case isShort(fa):
		argv = []string{spelling(fa) + "@W"}
	case fa.Attach:
		argv = []string{spelling(fa) + "=@W"}
	default:
		return nil
	}
	pre := prefix(fa)
	var tail []string
	git := fa.Probe.Parser == validators.GitParser
	if git {
		// parse-options stops at the first unknown option, so git runs with
		// what follows the flag in the separate-word probe; a value git
		// checks is one it accepts.
		pre = gitArgv(fa)[1:]
		switch {
		case fa.Sub[0] == "rev-parse":
			return nil // rev-parse prints the words it does not know
		case gitHelpProbed[fa.Sub[0]] && isShort(fa):
			return nil // cherry-pick and revert keep unknown words for later, so -x@W draws no complaint
		case fa.Sub[0] == "blame" || fa.Sub[0] == "annotate":
			tail = []string{"a.txt"} // the file to blame
		case fa.Sub[0] == "rev-list" || fa.Sub[0] == "diff-tree":
			tail = []string{"HEAD"} // a commit, so that only a bad option brings the usage
		case !gitRevParsed[strings.Join(fa.Sub, " ")] && fa.Sub[0] != "grep":
			tail = gitTail(fa) // the revision parser reports an unknown word last
		}
		if v, ok := validValues["git "+fa.Sub[0]+" "+fa.Name]; ok && isShort(fa) {
			argv[0] = spelling(fa) + v
		} else if v, ok := validValues["git "+fa.Name]; ok && !isShort(fa) {
			argv[0] = spelling(fa) + "=" + v
		}
	}
	if !git {
		tail = fa.Probe.After
	}
	x := p.exec(cat([]string{fa.Program}, pre, argv, tail)...)
	// Python's argparse refuses text after a flag that takes no value.
	argparseRefused := strings.Contains(x.out(), "ignored explicit argument '")
	if !git && isShort(fa) && !argparseRefused && !strings.Contains(x.out(), "Unknown option "+argv[0]) && !strings.Contains(x.out(), goUnknown+argv[0]) {
		// A flag that takes the next word attaches "@W" when "-x@W" does
		// what "-x @W" does; one that does not reads "-x@W" as a cluster
		// when it does what "-x -@W" does.
		other := []string{spelling(fa), "@W"}
		if next == 0 {
			other[1] = "-@W"
		}
		y := p.exec(cat([]string{fa.Program}, pre, other, tail)...)
		a := &attachment{readable: true, evidence: x.brief() + " vs " + y.brief()}
		a.attaches = p.differ(x, y) == (next == 0)
		a.does = "reads " + argv[0] + " as the value"
		if !a.attaches {
			a.does = "does not read " + argv[0] + " as a value"
		}
		return a
	}
	out := x.out()
	refused := false
	for _, m := range []string{
		// A cluster: '@' read as a flag.
		"invalid option -- '@'", "Found argument '-@'", "Invalid argument -`@'", "Unknown option -@",
		"unknown switch `@'", "unknown option `-@W'", "unrecognized argument: -@W", "invalid option: " + argv[0], "'" + argv[0][1:] + "': not a non-negative integer",
		// No value allowed, or the whole word unknown.
		"doesn't allow an argument", "takes no value", "unrecognized argument: " + argv[0],
		"unrecognized option '" + argv[0] + "'", "Missing argument to " + fa.Name,
		"Found argument '" + argv[0] + "'", "Invalid argument `" + argv[0] + "'", "Unknown option " + argv[0],
		"unknown option `" + strings.TrimLeft(argv[0], "-") + "'", "unknown option `" + argv[0] + "'",
		goUnknown + argv[0], "ignored explicit argument '",
	} {
		if strings.Contains(out, m) {
			refused = true
		}
	}
	if git && x.exit == 129 && strings.HasPrefix(x.stderr, "usage: ") {
		refused = true // the usage as an error: git read no value
	}
	a := &attachment{readable: true, attaches: !refused, evidence: x.brief()}
	a.does = "reads " + argv[0] + " as the value"
	if refused {
		a.does = "does not read " + argv[0] + " as a value"
	}
	return a
}

// gitSeparate probes a git spelling in the way its parser allows.
func (p *prober) gitSeparate(fa validators.FlagArity) observation {
	if len(fa.Sub) == 0 {
		// git's own options: the first word that is no option's value is
		// the subcommand. PROBEd is an existing directory (for -C).
		return p.firstOperand(fa, []string{fa.Program}, []string{"PROBEd", "PROBEb", "PROBEc"}, func(out, w string) bool {
			return strings.Contains(out, "'"+w+"' is not a git command") || strings.Contains(out, w+" doesn't support --super-prefix")
		})
	}
	argv := gitArgv(fa)
	if len(fa.Sub) == 1 && fa.Sub[0] == "grep" {
		// The first operand is the pattern (unless -e or -f gave one), the
		// next a revision git cannot resolve.
		o := p.firstOperand(fa, argv, gitTail(fa), func(out, w string) bool {
			return gitOperand(out, w) || strings.Contains(out, "unable to resolve revision: "+w) ||
				strings.Contains(out, w+": no such path in the working tree")
		})
		if o.next > 0 && fa.Name != "-e" && fa.Name != "-f" {
			o.next--
		}
		return o
	}
	if gitRevParsed[strings.Join(fa.Sub, " ")] {
		return p.firstOperand(fa, argv, gitTail(fa), gitOperand)
	}
	if gitHelpProbed[fa.Sub[0]] {
		return p.gitHelp(fa, argv)
	}
	// parse-options takes the next word as a value whatever it looks
	// like, so of two unknown options the first is reported unless the
	// flag took it.
	x := p.exec(cat(argv, []string{spelling(fa)}, gitTail(fa))...)
	switch {
	case knowsNot(x, fa):
		return observation{unknown: true, evidence: x.brief()}
	case strings.Contains(x.out(), "unknown option `PROBEy'"):
		return observation{next: 0, evidence: x.brief()}
	case strings.Contains(x.out(), "unknown option `PROBEz'") || valueSeen(x.out(), fa, "--PROBEy"),
		strings.Contains(x.out(), "PROBEz") && !strings.Contains(x.out(), "PROBEy"):
		return observation{next: 1, evidence: x.brief()}
	}
	return observation{next: -1, evidence: x.brief()}
}

// gitHelpProbed are the subcommands that keep unknown options (cherry-pick,
// revert) or parse them in a shell script (submodule): "-h" after the flag
// asks for usage unless the flag took it as its value.
var gitHelpProbed = map[string]bool{"cherry-pick": true, "revert": true, "submodule": true}

func (p *prober) gitHelp(fa validators.FlagArity, argv []string) observation {
	x := p.exec(cat(argv, []string{spelling(fa)}, gitTail(fa))...)
	switch {
	case knowsNot(x, fa):
		return observation{unknown: true, evidence: x.brief()}
	case x.exit == 129 && strings.HasPrefix(x.stdout, "usage: "),
		fa.Sub[0] == "submodule" && strings.HasPrefix(x.out(), "usage: git submodule"):
		// parse-options prints the usage asked for with -h on stdout;
		// git submodule's shell script prints its own.
		return observation{next: 0, evidence: x.brief()}
	case strings.Contains(x.out(), "PROBEz") || valueSeen(x.out(), fa, "-h"),
		x.exit == 129 && strings.HasPrefix(x.stderr, "usage: "):
		// The parser went past "-h" (to --PROBEz, or to a usage error).
		return observation{next: 1, evidence: x.brief()}
	}
	return observation{next: -1, evidence: x.brief()}
}

// gitArgv is git and the subcommand words.
func gitArgv(fa validators.FlagArity) []string {
	if strings.Join(fa.Sub, " ") == "remote list" {
		return []string{fa.Program, "remote"} // vtexec's name for git remote without a subcommand
	}
	return cat([]string{fa.Program}, fa.Sub)
}

// gitTail is what the separate-word probe puts after a git flag.
func gitTail(fa validators.FlagArity) []string {
	switch {
	case len(fa.Sub) == 0:
		return []string{"PROBEd", "PROBEb", "PROBEc"}
	case fa.Sub[0] == "grep":
		words := []string{"PROBEa", "PROBEb", "PROBEc", "PROBEd"}
		if fa.Kind == validators.Number {
			words[0] = "3"
		}
		return words
	case gitRevParsed[strings.Join(fa.Sub, " ")]:
		words := []string{"PROBEa", "PROBEb", "PROBEc"}
		if v, ok := validValues["git "+fa.Name]; ok && fa.Next > 0 {
			words[0] = v
		} else if fa.Kind == validators.Number {
			words[0] = "3"
		}
		return words
	case gitHelpProbed[fa.Sub[0]]:
		return []string{"-h", "--PROBEz"}
	}
	return []string{"--PROBEy", "--PROBEz"}
}

// gitFirstPass are the subcommands that read git log's own options in a
// pass over every word before the revision parser reads the rest.
var gitFirstPass = map[string]bool{
	"log": true, "show": true, "whatchanged": true, "format-patch": true, "reflog": true, "reflog show": true,
}

// gitOperand reports whether git read w as a revision or a path.
func gitOperand(out, w string) bool {
	q := regexp.QuoteMeta(w)
	return regexp.MustCompile(`ambiguous argument '` + q + `'|bad revision '` + q + `'|` + q + ` is not a valid reference|no such path '` + q + `'|'` + q + `' does not appear to be a valid revision|pathspec '` + q + `' did not match|Not a valid object name ` + q + `\b|bad revision: ` + q + `|Too many revisions specified: '` + q + `'`).MatchString(out)
}

// gitRevParsed are the git subcommands whose options go (partly) through
// git's revision parser, where "-h" after an option is always a request
// for usage; their operands are revisions and paths.
var gitRevParsed = map[string]bool{
	"log": true, "show": true, "whatchanged": true, "rev-list": true, "shortlog": true,
	"diff": true, "diff-tree": true, "format-patch": true, "blame": true, "annotate": true,
	"rev-parse": true, "reflog": true, "reflog show": true, "stash show": true, "stash list": true,
	"bisect start": true, "bisect bad": true, "bisect new": true, "bisect good": true,
	"bisect old": true, "bisect skip": true,
}

// skipReason says why a spelling is not probed, or "".
func skipReason(fa validators.FlagArity) string {
	if fa.Probe.Parser == validators.GitParser && len(fa.Sub) > 0 && fa.Sub[0] == "submodule" {
		return "git submodule is a shell script in git 2.39 that answers -h and an unknown option alike with its usage, so no observation tells whether the word after the flag was its value"
	}
	return skipReasons[key(fa)]
}

// goUnknown is how Go's flag package refuses a word that names no flag.
const goUnknown = "flag provided but not defined: "

// key names a spelling in the tables: "PROGRAM SUB... NAME", with two
// spaces when there is no subcommand.
func key(fa validators.FlagArity) string {
	return fa.Program + " " + strings.Join(fa.Sub, " ") + " " + fa.Name
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
