package execpolicy

import (
	"strings"

	"github.com/vtexec/vtexec/validators"
	"mvdan.cc/sh/v3/syntax"
)

// forbiddenSyntax returns a refusal for the first node, in source order,
// that vtexec does not run: anything whose effect depends on a shell.
func forbiddenSyntax(f *syntax.File) *Verdict {
	return forbiddenSyntaxWith(f, unrolled{})
}

// forbiddenSyntaxWith is forbiddenSyntax where unrolled loops may stand
// as groups, and their statements use their loop variable.
func forbiddenSyntaxWith(f *syntax.File, loops unrolled) *Verdict {
	var found *Verdict
	var allowed map[string]string
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			// Every statement of an iteration has its variable; no
			// other statement has any.
			allowed = loops.vars[n]
		case *syntax.Block:
			if loops.groups[n] {
				return true
			}
		case *syntax.Subshell:
			if loops.subshells[n] {
				return true
			}
		case *syntax.IfClause:
			if loops.ifs[n] {
				return true
			}
		}
		found = forbiddenNode(n, allowed)
		return found == nil
	})
	return found
}

func forbiddenNode(n syntax.Node, vars map[string]string) *Verdict {
	const (
		literal = "write the value literally; vtexec runs no shell, so nothing is expanded"
		oneCmd  = "run the commands one at a time, or joined with && ; || and |"
	)
	switch n := n.(type) {
	case *syntax.Stmt:
		// A ! before a pipeline is the step's (see flattener.list),
		// which refuses it anywhere else.
		switch {
		case n.Background || n.Disown:
			return deny(CodeBackground, "run it in the foreground; long jobs end at the timeout", "background jobs (&) are not allowed")
		case n.Coprocess:
			return deny(CodeBackground, oneCmd, "coprocesses are not allowed")
		}
	case *syntax.CmdSubst:
		if _, ok := catHereDoc(n); ok {
			return deny(CodeSubstitution, "put it in double quotes: \"$(cat <<'EOF' … EOF)\" is the text, as one word",
				"a here-document substituted outside double quotes would be split into words and globbed")
		}
		return deny(CodeSubstitution, "run the inner command first, then use its output literally", "command substitution is not allowed")
	case *syntax.ProcSubst:
		return deny(CodeSubstitution, "write the data to a file inside the workspace and pass the file", "process substitution is not allowed")
	case *syntax.ParamExp:
		if isPWD(n) {
			return nil // expanded where the cwd allows it (see pwdVerdict)
		}
		if _, ok := vars[paramName(n)]; ok && isSimpleParam(n) {
			return nil // a loop variable, expanded as bash would
		}
		return deny(CodeExpansion, expansionHint(n), "parameter expansion ($%s) is not allowed", paramName(n))
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
		return deny(CodeExpansion, "compute the value first and write the number literally", "arithmetic is not allowed")
	case *syntax.ExtGlob:
		return deny(CodeExpansion, "use a plain glob (*, ?, [...]) or list the files", "extended globs are not allowed")
	case *syntax.Subshell:
		return deny(CodeSubshell, "use ( … ) as a statement or as one part of an && / || list; or "+oneCmd,
			"a ( ) group in a pipeline is not allowed")
	case *syntax.Block:
		return deny(CodeSubshell, "use { …; } as a statement or as one part of an && / || list; or "+oneCmd,
			"a { } group in a pipeline is not allowed")
	case *syntax.FuncDecl:
		return deny(CodeControlFlow, oneCmd, "function definitions are not allowed")
	case *syntax.IfClause:
		return deny(CodeControlFlow, "use the if as a statement or as one part of an && / || list; or "+oneCmd, "an if in a pipeline is not allowed")
	case *syntax.ForClause:
		return deny(CodeControlFlow, "run the loop as a statement of its own, or one part of an && / || list, not inside another loop",
			"a for loop here (in a pipeline, or inside another loop) is not allowed")
	case *syntax.WhileClause, *syntax.CaseClause, *syntax.TestClause, *syntax.TestDecl:
		return deny(CodeControlFlow, oneCmd, "shell control flow (if, for, while, case, select, [[ ]]) is not allowed")
	case *syntax.CoprocClause:
		return deny(CodeBackground, oneCmd, "coprocesses are not allowed")
	case *syntax.DeclClause:
		return deny(CodeAssignment, "pass values as arguments; vtexec runs no shell, so variables do not persist", "%s is not allowed", n.Variant.Value)
	case *syntax.Assign:
		return deny(CodeAssignment, "pass values as arguments or flags; the environment is fixed by vtexec", "variable assignments (NAME=value) are not allowed")
	case *syntax.Redirect:
		if n.Hdoc != nil && (n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc) && !quotedDelimiter(n.Word) {
			for _, part := range n.Hdoc.Parts {
				switch p := part.(type) {
				case *syntax.Lit:
				case *syntax.ParamExp:
					if !isPWD(p) {
						return deny(CodeExpansion, "quote the delimiter (<<'EOF') so bash takes the text as it is, or write the value literally",
							"the here-document has $%s, which bash would expand there (its delimiter is not quoted)", paramName(p))
					}
				default:
					return deny(CodeExpansion, "quote the delimiter (<<'EOF') so bash takes the text as it is",
						"the here-document has a substitution or arithmetic, which bash would run there (its delimiter is not quoted)")
				}
			}
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.PipeAll {
			return deny(CodeRedirect, "use 2>&1 | instead of |&", "|& is not allowed")
		}
	}
	return nil
}

// pwdSubstitutions turns each $(pwd) and `pwd` in f — the pwd builtin
// alone, which prints the directory the command starts in — into $PWD,
// which vtexec expands (see pwdVerdict).
func pwdSubstitutions(f *syntax.File) {
	replace := func(parts []syntax.WordPart) {
		for i, part := range parts {
			if cs, ok := part.(*syntax.CmdSubst); ok && barePwd(cs) {
				parts[i] = &syntax.ParamExp{Dollar: cs.Left, Short: true, Param: &syntax.Lit{ValuePos: cs.Left, ValueEnd: cs.Right, Value: "PWD"}}
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			replace(n.Parts)
		case *syntax.DblQuoted:
			replace(n.Parts)
		}
		return true
	})
}

// hereDocSubstitutions turns each "$(cat <<'EOF' … EOF)" in double
// quotes in f — cat alone, printing a here-document whose text nothing
// expands — into that text, as bash would substitute it (trailing
// newlines dropped): the form agents write multi-line messages in
// (git commit -m "$(cat <<'EOF' …)"). In double quotes the text is one
// word, neither split nor globbed. Run it after the loops are unrolled:
// their bodies are printed and parsed again, where the text it leaves
// would not survive as it stands.
func hereDocSubstitutions(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if dq, ok := n.(*syntax.DblQuoted); ok {
			for i, part := range dq.Parts {
				if cs, ok := part.(*syntax.CmdSubst); ok {
					if text, ok := catHereDoc(cs); ok {
						dq.Parts[i] = &syntax.SglQuoted{Left: cs.Left, Right: cs.Right, Value: text}
					}
				}
			}
		}
		return true
	})
}

// catHereDoc returns what cs prints when it runs exactly `cat` on a
// here-document whose text is taken as it is (a quoted delimiter, or no
// $, backquote or backslash in it), without its trailing newlines.
func catHereDoc(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 {
		return "", false
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(call.Assigns) > 0 || len(call.Args) != 1 ||
		!validators.ProfileOf(call.Args[0].Lit()).CopiesInput || len(st.Redirs) != 1 {
		return "", false
	}
	r := st.Redirs[0]
	if r.N != nil || (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.Hdoc == nil {
		return "", false
	}
	if !quotedDelimiter(r.Word) {
		for _, part := range r.Hdoc.Parts {
			if _, lit := part.(*syntax.Lit); !lit {
				return "", false
			}
		}
	}
	body, v := hereBody(r, "")
	if v != nil {
		return "", false
	}
	return strings.TrimRight(body, "\n"), true
}

// barePwd reports whether cs runs exactly `pwd`: no arguments, redirects
// or other commands.
func barePwd(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	return ok && !st.Negated && !st.Background && len(st.Redirs) == 0 && len(call.Assigns) == 0 &&
		len(call.Args) == 1 && validators.ProfileOf(call.Args[0].Lit()).PrintsCwd
}

// isPWD reports whether p is exactly $PWD or ${PWD}: the directory the
// command starts in, which vtexec knows.
func isPWD(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Param.Value == "PWD" && isSimpleParam(p)
}

// isSimpleParam reports whether p is $NAME or ${NAME}, with no operator.
func isSimpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil &&
		!p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 &&
		p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// expansionHint says what to write instead of a parameter expansion.
func expansionHint(p *syntax.ParamExp) string {
	switch name := paramName(p); name {
	case "HOME":
		return "vtexec runs no shell, so nothing is expanded: write paths inside the workspace instead of $HOME (files under the home directory are outside it)"
	case "PWD":
		return "use $PWD or ${PWD} alone, or write the path literally (relative paths start in the cwd)"
	case "?", "!", "$", "#", "@", "*", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-", "_":
		return "vtexec runs no shell, so $" + name + " has no value: read the exit code and output in the result, and write values literally"
	default:
		return "vtexec runs no shell and the environment is fixed, so $" + name + " has no value: write the value literally (run a command first to find it out, then pass what it printed)"
	}
}

func paramName(p *syntax.ParamExp) string {
	if p.Param != nil {
		return p.Param.Value
	}
	return ""
}
