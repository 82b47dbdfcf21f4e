package execpolicy

import (
	"mvdan.cc/sh/v3/syntax"
)

// forbiddenSyntax returns a refusal for the first node, in source order,
// that vtexec does not run: anything whose effect depends on a shell.
func forbiddenSyntax(f *syntax.File) *Verdict {
	var found *Verdict
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		found = forbiddenNode(n)
		return found == nil
	})
	return found
}

func forbiddenNode(n syntax.Node) *Verdict {
	const (
		literal = "write the value literally; vtexec runs no shell, so nothing is expanded"
		oneCmd  = "run the commands one at a time, or joined with && ; || and |"
	)
	switch n := n.(type) {
	case *syntax.Stmt:
		switch {
		case n.Background || n.Disown:
			return deny(CodeBackground, "run it in the foreground; long jobs end at the timeout", "background jobs (&) are not allowed")
		case n.Coprocess:
			return deny(CodeBackground, oneCmd, "coprocesses are not allowed")
		case n.Negated:
			return deny(CodeControlFlow, "run the command without !, and read its exit code", "negation (!) is not allowed")
		}
	case *syntax.CmdSubst:
		return deny(CodeSubstitution, "run the inner command first, then use its output literally", "command substitution is not allowed")
	case *syntax.ProcSubst:
		return deny(CodeSubstitution, "write the data to a file inside the workspace and pass the file", "process substitution is not allowed")
	case *syntax.ParamExp:
		return deny(CodeExpansion, literal, "parameter expansion ($%s) is not allowed", paramName(n))
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
		return deny(CodeExpansion, "compute the value first and write the number literally", "arithmetic is not allowed")
	case *syntax.ExtGlob:
		return deny(CodeExpansion, "use a plain glob (*, ?, [...]) or list the files", "extended globs are not allowed")
	case *syntax.Subshell, *syntax.Block:
		return deny(CodeSubshell, oneCmd, "subshells and { } groups are not allowed")
	case *syntax.FuncDecl:
		return deny(CodeControlFlow, oneCmd, "function definitions are not allowed")
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
		*syntax.TestClause, *syntax.TestDecl:
		return deny(CodeControlFlow, oneCmd, "shell control flow (if, for, while, case, select, [[ ]]) is not allowed")
	case *syntax.CoprocClause:
		return deny(CodeBackground, oneCmd, "coprocesses are not allowed")
	case *syntax.DeclClause:
		return deny(CodeAssignment, "pass values as arguments; vtexec runs no shell, so variables do not persist", "%s is not allowed", n.Variant.Value)
	case *syntax.Assign:
		return deny(CodeAssignment, "pass values as arguments or flags; the environment is fixed by vtexec", "variable assignments (NAME=value) are not allowed")
	case *syntax.Redirect:
		switch n.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			return deny(CodeRedirect, "write the text to a file inside the workspace and pass the file", "here-documents and here-strings are not allowed")
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.PipeAll {
			return deny(CodeRedirect, "use 2>&1 | instead of |&", "|& is not allowed")
		}
	}
	return nil
}

func paramName(p *syntax.ParamExp) string {
	if p.Param != nil {
		return p.Param.Value
	}
	return ""
}
