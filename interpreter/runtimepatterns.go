package interpreter

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/shpattern"
)

// The shell library runs every command of a pipeline but the last, and
// a process substitution, on a goroutine of its own. A pattern it cannot
// compile (see shpattern) panics there, where no recover reaches, and
// ends the process: a `vtexec run`, or the server with every session on
// it. The checker refuses such patterns where they are written out; a
// value known only at run time (a substitution's output, a file name a
// glob found, a line read) is seen by nothing before the library
// compiles it. So, on those goroutines, no run-time value may stand where
// the library reads a pattern: unquoted in a word it globs, or in the
// pattern of ${x#…}, ${x/…}, a case item or [[ … == … ]]. On the main
// goroutine the interpreter recovers (stopOnUnreadablePattern); the
// environment's values, the one run-time input the script does not
// make, are checked before anything runs (unreadableEnv). On every
// goroutine a pattern costs the translator up to quadratic or
// exponential work (shpattern.Work), which nothing can count for a value
// it has not seen: no run-time value stands in the pattern of a case
// item or [[ == ]], nor unquoted in that of ${x#…} (runTimeMatchPatterns).

// RunTimePatterns refuses f if a value known only at run time stands
// where the library reads a pattern: unquoted anywhere in a command the
// library runs on a goroutine of its own, and everywhere in the pattern
// of a case item or [[ == ]] (quoted too) or, unquoted, of ${x#…} or
// ${x/…}. The library's translator
// reads an unclosed bracket expression again for each one after it, and
// (in case items and [[ ]], whatever the options) an unclosed extglob
// group again for each way out: written-out patterns are counted before
// they run (the checker's checkPatterns, unreadableEnv), but nothing
// sees a run-time value between the script and the translator, so one
// line of a file could keep a run busy for minutes past its timeout.
// Unquoted in a word that globs, on the main goroutine, it stays
// allowed (SECURITY.md, Known limits).
func RunTimePatterns(f *syntax.File) *Refusal {
	dyn := runTimeVars(f)
	if r := runTimeMatchPatterns(f, dyn); r != nil {
		return r
	}
	notGlobbed := wordsNotGlobbed(f)
	var found *Refusal
	check := func(root syntax.Node) {
		syntax.Walk(root, func(n syntax.Node) bool {
			if found != nil {
				return false
			}
			w, ok := n.(*syntax.Word)
			if !ok || notGlobbed[w] {
				return true
			}
			if what := unquotedRunTime(w, dyn); what != "" {
				found = &Refusal{Code: codes.Expansion,
					Reason: what + " is known only when the command runs, and is used unquoted in a command before a pipe or in a process substitution, where vtexec's interpreter cannot stop a value that does not read as a pattern",
					Hint:   `quote it ("$name"), or make that command the last of its pipeline`}
			}
			return true
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				check(x.X)
			}
		case *syntax.ProcSubst:
			check(x)
			return false
		}
		return true
	})
	return found
}

// runTimeMatchPatterns refuses f if a run-time value stands in the
// pattern of a case item or [[ == ]] (quoted or not: the library matches
// those with extglob groups, which quoting does not escape), or unquoted
// in that of a parameter expansion (${x#…}, ${x%…}, ${x/…}, ${x^…}).
func runTimeMatchPatterns(f *syntax.File, dyn map[string]bool) *Refusal {
	var found *Refusal
	match := func(w *syntax.Word) {
		if found != nil {
			return
		}
		if what := runTimeIn(w, dyn); what != "" {
			found = &Refusal{Code: codes.Expansion,
				Reason: what + " is known only when the command runs, and stands in the pattern of a case item or [[ == ]], which the shell library reads with extglob groups even where quoted: vtexec cannot bound what it reads to translate a pattern it has not seen, which can take it minutes or more",
				Hint:   `compare text with [ "$a" = "$b" ] or [ "$a" != "$b" ] (no pattern), or write the pattern out`}
		}
	}
	param := func(w *syntax.Word) {
		if found != nil || w == nil {
			return
		}
		if what := unquotedRunTime(w, dyn); what != "" {
			found = &Refusal{Code: codes.Expansion,
				Reason: what + " is known only when the command runs, and is used unquoted as the pattern of ${x#…}, ${x%…} or ${x/…}: vtexec cannot bound what the shell library reads to translate a pattern it has not seen, which can take it minutes",
				Hint:   `quote it ("$name") to match its text as it is, or write the pattern out`}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CaseItem:
			for _, w := range x.Patterns {
				match(w)
			}
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch:
				if w, ok := x.Y.(*syntax.Word); ok {
					match(w)
				}
			}
		case *syntax.ParamExp:
			if x.Repl != nil {
				param(x.Repl.Orig)
			}
			if x.Exp != nil {
				switch x.Exp.Op {
				case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix,
					syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
					param(x.Exp.Word)
				}
			}
		}
		return found == nil
	})
	return found
}

// runTimeIn names the first run-time value in w, quoted or not ("" if
// none).
func runTimeIn(w *syntax.Word, dyn map[string]bool) string {
	what := ""
	syntax.Walk(w, func(n syntax.Node) bool {
		if what != "" {
			return false
		}
		what = runTimePart(n, dyn)
		_, param := n.(*syntax.ParamExp)
		return what == "" && !param
	})
	return what
}

// unquotedRunTime names the first run-time value among w's parts outside
// quotes ("" if none).
func unquotedRunTime(w *syntax.Word, dyn map[string]bool) string {
	for _, p := range w.Parts {
		if what := runTimePart(p, dyn); what != "" {
			return what
		}
	}
	return ""
}

// runTimePart names n if it is a run-time value: a command substitution
// or a run-time parameter ("" if not).
func runTimePart(n syntax.Node, dyn map[string]bool) string {
	switch x := n.(type) {
	case *syntax.CmdSubst:
		return "a command substitution"
	case *syntax.ParamExp:
		if runTimeParam(x, dyn) {
			if x.Param != nil {
				return "$" + x.Param.Value
			}
			return "a parameter"
		}
	}
	return ""
}

// runTimeParam reports whether p's value is known only at run time: a
// variable the script sets from one, a name looked up through another
// (${!x}), or a value taken from a substitution inside it.
func runTimeParam(p *syntax.ParamExp, dyn map[string]bool) bool {
	if p.Length || p.Width {
		return false // a number
	}
	if p.Excl || p.Param == nil || dyn[p.Param.Value] || runTimeSpecial[p.Param.Value] {
		return true
	}
	inner := false
	syntax.Walk(p, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			inner = true
		case *syntax.ParamExp:
			if x != p && runTimeParam(x, dyn) {
				inner = true
			}
		}
		return !inner
	})
	return inner
}

// runTimeSpecial are variables the interpreter sets at run time to text
// from outside the script: the directories cd moved to.
var runTimeSpecial = map[string]bool{"PWD": true, "OLDPWD": true, "DIRSTACK": true}

// runTimeVars are the variables f sets to a value known only at run time:
// assigned anything but written-out text, a loop's variable over words
// that are not (a glob's file names included), or set by read, mapfile,
// readarray or getopts (REPLY, MAPFILE and OPTARG too).
func runTimeVars(f *syntax.File) map[string]bool {
	dyn := map[string]bool{"REPLY": true, "MAPFILE": true, "OPTARG": true}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name == nil {
				return true
			}
			if (x.Value != nil && runTime(x.Value)) || x.Index != nil {
				dyn[x.Name.Value] = true
			}
			if x.Array != nil {
				for _, e := range x.Array.Elems {
					if e.Value != nil && runTime(e.Value) {
						dyn[x.Name.Value] = true
					}
				}
			}
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok {
				for _, w := range it.Items {
					if runTime(w) || globbed(w) {
						dyn[it.Name.Value] = true
					}
				}
			}
		case *syntax.ParamExp:
			// ${x:=word} assigns word to x.
			if x.Param != nil && x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) &&
				x.Exp.Word != nil && runTime(x.Exp.Word) {
				dyn[x.Param.Value] = true
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			switch x.Args[0].Lit() {
			case "read", "mapfile", "readarray", "getopts":
				for _, a := range x.Args[1:] {
					if name := a.Lit(); syntax.ValidName(name) {
						dyn[name] = true
					}
				}
			}
		}
		return true
	})
	return dyn
}

// globbed reports whether w has a glob character outside quotes: its
// words are file names found at run time.
func globbed(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			for _, c := range l.Value {
				if c == '*' || c == '?' || c == '[' {
					return true
				}
			}
		}
	}
	return false
}

// wordsNotGlobbed are f's words the library neither globs nor reads as a
// pattern: assigned values, a case's subject, here-documents, and words
// read as arithmetic or an array index. Words nested in them (the
// pattern of a ${x#…} inside an assignment) are looked at on their own.
func wordsNotGlobbed(f *syntax.File) map[*syntax.Word]bool {
	not := map[*syntax.Word]bool{}
	arith := func(e syntax.ArithmExpr) {
		if e == nil {
			return
		}
		syntax.Walk(e, func(n syntax.Node) bool {
			if w, ok := n.(*syntax.Word); ok {
				not[w] = true
			}
			return true
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Value != nil {
				not[x.Value] = true
			}
			if x.Array != nil {
				for _, e := range x.Array.Elems {
					if e.Value != nil {
						not[e.Value] = true
					}
				}
			}
			arith(x.Index)
		case *syntax.CaseClause:
			not[x.Word] = true
		case *syntax.Redirect:
			if x.Hdoc != nil {
				not[x.Hdoc] = true
			}
		case *syntax.ArithmExp:
			arith(x.X)
		case *syntax.ArithmCmd:
			arith(x.X)
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				arith(e)
			}
		case *syntax.CStyleLoop:
			arith(x.Init)
			arith(x.Cond)
			arith(x.Post)
		case *syntax.ParamExp:
			arith(x.Index)
			if x.Slice != nil {
				arith(x.Slice.Offset)
				arith(x.Slice.Length)
			}
		}
		return true
	})
	return not
}

// unreadableEnv is the stop for an environment value the library could
// not read as a pattern, or for values it would take too long to read
// (the script's variables are checked where set), or nil.
func unreadableEnv(env []string) *Stop {
	left := shpattern.MaxWork
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !shpattern.Worth(value) {
			continue // nothing the library reads twice
		}
		if left -= shpattern.Work(value, left); left < 0 {
			return &Stop{Code: codes.CheckLimit, Reason: "the environment's values would take the shell library too long to read as patterns (" + name + " among them): a bracket expression or extglob group left open is read to the end of its value, and again for each one after it", Hint: "unset " + name + " or close its brackets; " + shpattern.WorkHint}
		}
		if why := shpattern.Uncompilable(value); why != "" {
			return &Stop{Code: codes.ParseError, Reason: "the environment's " + name + " holds a pattern that cannot be read: " + why, Hint: shpattern.Hint}
		}
	}
	return nil
}
