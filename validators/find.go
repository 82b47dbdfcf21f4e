package validators

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/workspace"
)

// find (GNU findutils 4.9) has no getopt: a few leading options, then the
// start points, then an expression in a language of its own. The expression
// is read word by word as find reads it, every word must be a primary find
// knows and vtexec allows, and each takes exactly its number of arguments.

// findPrimary is one word of find's expression.
type findPrimary struct {
	args   int    // how many words follow it as its arguments
	path   bool   // its (only) argument names a file that find stats
	forbid string // refuse it, with this reason
}

const (
	findAsks   = "asks on the terminal before each file, and vtexec's commands read no terminal"
	findWrites = "writes to a file; redirect find's output instead"
)

// findPrimaries are the expression words, named as find's own table does,
// without the leading "-".
var findPrimaries = &lazy[map[string]findPrimary]{make: func() map[string]findPrimary {
	return map[string]findPrimary{
		// Operators.
		"(": {}, ")": {}, "!": {}, "not": {}, ",": {}, "a": {}, "and": {}, "o": {}, "or": {},
		// Options.
		"d": {}, "depth": {}, "maxdepth": {args: 1}, "mindepth": {args: 1},
		"mount": {}, "xdev": {}, "noleaf": {}, "ignore_readdir_race": {}, "noignore_readdir_race": {},
		"daystart": {}, "regextype": {args: 1}, "warn": {}, "nowarn": {},
		"help": {}, "-help": {}, "version": {}, "-version": {},
		"follow":      {forbid: symlinkEscape},
		"files0-from": {args: 1, forbid: "reads the start points from a file, so vtexec cannot confine them"},
		// Tests.
		"amin": {args: 1}, "anewer": {args: 1, path: true}, "atime": {args: 1},
		"cmin": {args: 1}, "cnewer": {args: 1, path: true}, "ctime": {args: 1},
		"mmin": {args: 1}, "mtime": {args: 1}, "newer": {args: 1, path: true}, "used": {args: 1},
		"empty": {}, "executable": {}, "readable": {}, "writable": {}, "false": {}, "true": {},
		"fstype": {args: 1}, "context": {args: 1}, "gid": {args: 1}, "group": {args: 1},
		"uid": {args: 1}, "user": {args: 1}, "nogroup": {}, "nouser": {},
		"name": {args: 1}, "iname": {args: 1}, "path": {args: 1}, "ipath": {args: 1},
		"wholename": {args: 1}, "iwholename": {args: 1}, "regex": {args: 1}, "iregex": {args: 1},
		"lname": {args: 1}, "ilname": {args: 1}, "inum": {args: 1}, "links": {args: 1},
		"perm": {args: 1}, "samefile": {args: 1, path: true}, "size": {args: 1},
		"type": {args: 1}, "xtype": {args: 1},
		// Actions.
		"print": {}, "print0": {}, "printf": {args: 1}, "ls": {}, "prune": {}, "quit": {},
		"delete": {},                // asks (see findDeletes)
		"exec":   {}, "execdir": {}, // see findExec
		"ok": {forbid: findAsks}, "okdir": {forbid: findAsks},
		"fprint": {args: 1, forbid: findWrites}, "fprint0": {args: 1, forbid: findWrites},
		"fls": {args: 1, forbid: findWrites}, "fprintf": {args: 2, forbid: findWrites},
	}
}}

func registerFind() { register("find", findWrapper{}, findEntry) }

func findEntry() Entry {
	e := Entry{Program: "find", Operands: "options -H -P -D -O, start points (confined), then an expression of the primaries below. " +
		"-exec/-execdir COMMAND ... {} ; or + (one per find): COMMAND is checked as if it stood alone; -exec is allowed when COMMAND only reads " +
		"(" + strings.Join(findReaderNames(), " ") + ") and -type f comes before it with no -o, !, ( ) or , there, so that every match is a regular file; otherwise (and for -execdir) a person must approve"}
	for name, p := range findPrimaries.get() {
		if p.forbid != "" {
			e.Refused = append(e.Refused, Refusal{Flag: "-" + name, Reason: p.forbid})
		} else {
			e.Allowed = append(e.Allowed, "-"+name)
		}
	}
	e.Refused = append(e.Refused, Refusal{Flag: "-L", Reason: symlinkEscape})
	sort.Strings(e.Allowed)
	sort.Slice(e.Refused, func(i, j int) bool { return e.Refused[i].Flag < e.Refused[j].Flag })
	return e
}

// findWrapper is find: a validator, and a wrapper for the command its
// -exec or -execdir runs.
type findWrapper struct{}

func (findWrapper) Check(c *Call) error {
	_, _, err := checkFind(c)
	return err
}

func (findWrapper) Unwrap(c *Call) ([]string, error) {
	inner, _, err := checkFind(c)
	return inner, err
}

// canonicalWithCommand writes the command -exec runs in its own
// canonical form, as for any wrapper: what is checked is what that
// program parses.
func (findWrapper) canonicalWithCommand(argv []string, ws *workspace.Workspace) []string {
	inner, at, err := checkFind(&Call{Argv: argv, WS: ws})
	var f *Finding
	if len(inner) == 0 || (err != nil && !(errors.As(err, &f) && f.Ask)) {
		return argv
	}
	out := slices.Clone(argv[:at])
	out = append(out, Canonical(filepath.Base(inner[0]), inner, ws)...)
	return append(out, argv[at+len(inner):]...)
}

// findReaders only read the files named as their operands, and write
// nothing but their output: run on what find matches, they can reach no
// more than find itself.
var findReaders = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"cat": true, "head": true, "tail": true, "wc": true, "grep": true, "egrep": true, "fgrep": true,
		"file": true, "stat": true, "ls": true, "nl": true, "du": true, "md5sum": true, "sha1sum": true,
		"sha256sum": true, "sha512sum": true, "cksum": true, "basename": true, "dirname": true, "echo": true,
	}
})

func findReaderNames() []string {
	var names []string
	for n := range findReaders() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// findExec reads `-exec COMMAND ... ;` (or `+`, after a lone {}) at
// args[0] and returns the command and how many words it took.
func findExec(args []string) ([]string, int, error) {
	for j := 1; j < len(args); j++ {
		if args[j] == ";" || (args[j] == "+" && args[j-1] == "{}" && j > 1) {
			if j == 1 {
				return nil, 0, refuse(CodeBadUsage, "name the command: find ... "+args[0]+" grep -l TEXT {} +", "find: %s has no command", args[0])
			}
			return args[1:j], j + 1, nil
		}
	}
	return nil, 0, refuse(CodeBadUsage, "end the command with \\; or {} +", "find: %s is missing its ; or +", args[0])
}

// checkFind checks a find command line and returns the command its
// -exec or -execdir runs, if any. That command is allowed as it stands
// (the caller checks it) when every match it can get is a regular file
// (-type f before it, and only "and" between them: no link leading out
// can be matched), it only reads (findReaders), each {} a word of its
// own, and it runs in the directory its paths were checked in (-exec,
// not -execdir); otherwise a person approves.
//
// at is where the command starts in c.Argv.
func checkFind(c *Call) (inner []string, at int, err error) {
	args := c.Argv[1:]
	i, err := findLeadingOptions(args)
	if err != nil {
		return nil, 0, err
	}
	// Start points run up to the first word that looks like an expression;
	// with none, find searches ".", the current directory.
	var starts []string
	for ; i < len(args) && !findLooksLikeExpression(args[i], true); i++ {
		if err := c.ReadPath(args[i], false); err != nil {
			return nil, 0, err
		}
		starts = append(starts, args[i])
	}
	deletes, onlyFiles, branches := false, false, false
	plain := true // the command's {} are whole words
	for i < len(args) {
		switch args[i] {
		case "-exec", "-execdir":
			if inner != nil {
				return nil, 0, refuse(CodeBadUsage, "use one -exec per find", "find: more than one -exec or -execdir")
			}
			cmd, n, err := findExec(args[i:])
			if err != nil {
				return nil, 0, err
			}
			inner, at = cmd, 1+i+1
			for _, w := range cmd {
				plain = plain && (w == "{}" || !strings.Contains(w, "{}"))
			}
			// -execdir runs the command in each match's directory, where
			// its other relative paths lead elsewhere than checked.
			if branches || !onlyFiles || args[i] == "-execdir" {
				plain = false
			}
			i += n
			continue
		case "(", ")", "!", "-not", "-o", "-or", ",":
			branches = true
		case "-type":
			onlyFiles = onlyFiles || (i+1 < len(args) && args[i+1] == "f" && !branches)
		}
		n, err := checkFindPrimary(c, args[i:])
		if err != nil {
			return nil, 0, err
		}
		deletes = deletes || args[i] == "-delete"
		i += n
	}
	if deletes {
		return inner, at, findDeletes(c, starts)
	}
	if inner != nil && !(plain && findReaders()[inner[0]]) {
		return inner, at, &Finding{Ask: true, Code: codes.UnseenArguments,
			Reason: "find runs " + inner[0] + " on each file it matches, which vtexec does not see (one may be a link leading out, or a protected file)",
			Hint:   "put -type f before -exec and run a command that only reads (" + strings.Join(findReaderNames(), " ") + "), or search with grep -rn; otherwise a person must approve"}
	}
	return inner, at, nil
}

// findDeletes is the question for find -delete, which removes what the
// expression matches under the start points: like rm, a person approves
// it, each time (what matches can change), and a start point must be a
// place vtexec lets commands write. find does not follow links (-L is
// refused) and the kernel box keeps the git directory, .vtexec and the
// agent configuration read-only whatever matches.
func findDeletes(c *Call, starts []string) error {
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, s := range starts {
		if err := c.WritePath(s); err != nil {
			return err
		}
	}
	return &Finding{Ask: true, NeverAlways: true, Code: CodeDestructive, Hint: rmHint,
		Reason: fmt.Sprintf("find -delete would remove every entry its expression matches under %s", strings.Join(starts, ", "))}
}

// findLeadingOptions reads -H -L -P -D DEBUGOPTS -OLEVEL and "--", and
// returns the index of the first word after them.
func findLeadingOptions(args []string) (int, error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-H" || a == "-P":
		case a == "-L":
			return 0, refuse(CodeForbiddenFlag, "drop -L; find may not use it", "find -L is refused: %s", symlinkEscape)
		case a == "--":
			return i + 1, nil
		case a == "-D":
			if i+1 >= len(args) {
				return 0, refuse(CodeBadUsage, "give -D its debug options, e.g. -D tree", "find: -D needs an argument")
			}
			i++
		case strings.HasPrefix(a, "-O"):
		default:
			return i, nil
		}
	}
	return len(args), nil
}

// findLooksLikeExpression is find's own test for where the start points
// end: "-x", and a lone "!" or "("; a lone ")" or "," too, except as the
// first word after the start points.
func findLooksLikeExpression(arg string, leading bool) bool {
	switch {
	case arg == "(" || arg == "!":
		return true
	case arg == ")" || arg == ",":
		return !leading
	}
	return len(arg) > 1 && arg[0] == '-'
}

// checkFindPrimary checks the primary at args[0] with its arguments and
// returns how many words it took.
func checkFindPrimary(c *Call, args []string) (int, error) {
	word := args[0]
	if !findLooksLikeExpression(word, false) {
		return 0, refuse(CodeBadUsage, "put start points before the expression: find DIR... EXPRESSION",
			"find: paths must precede expression: %q", word)
	}
	p, ok := findPrimaries.get()[strings.TrimPrefix(word, "-")]
	if !ok {
		p, ok = findNewerXY(word)
	}
	if !ok {
		return 0, refuse(CodeUnknownFlag, "allowed find primaries: "+findAllowedList(),
			"find: unknown primary %s", word)
	}
	if p.forbid != "" {
		return 0, refuse(CodeForbiddenFlag, "drop "+word+"; find may not use it", "find %s is refused: %s", word, p.forbid)
	}
	if len(args) <= p.args {
		return 0, refuse(CodeBadUsage, "give "+word+" its argument", "find: %s needs an argument", word)
	}
	if p.path {
		if err := c.ReadPath(args[1], false); err != nil {
			return 0, err
		}
	}
	return 1 + p.args, nil
}

// findNewerXY recognises -newerXY: X is the time of the file found (a, B,
// c, m) compared with Y of the argument, a file, or with t the argument is
// a date.
func findNewerXY(word string) (findPrimary, bool) {
	if len(word) != len("-newerXY") || !strings.HasPrefix(word, "-newer") ||
		!strings.ContainsRune("aBcm", rune(word[6])) || !strings.ContainsRune("aBcmt", rune(word[7])) {
		return findPrimary{}, false
	}
	return findPrimary{args: 1, path: word[7] != 't'}, true
}

func findAllowedList() string {
	var names []string
	for name, p := range findPrimaries.get() {
		if p.forbid == "" && name != "-help" && name != "-version" {
			if name[0] >= 'a' && name[0] <= 'z' {
				name = "-" + name
			}
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return quoteList(append(names, "-newerXY"))
}
