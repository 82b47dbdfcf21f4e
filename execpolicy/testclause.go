package execpolicy

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/validators"
)

// testClauses turns each [[ EXPR ]] whose meaning test(1) shares into
// the command test with the same words: one unary test (-f FILE, -n
// STR …), one binary test (A = B, A != B, N -eq M, F -nt G …) or one
// word. Words must not glob, brace-expand or be split, since [[ ]] does
// none of that; a pattern on the right of == or != would match as a
// pattern, so it must be quoted to mean what test means. Everything else
// ([[ A && B ]], =~, < and >, !) is left for forbiddenSyntax to refuse.
// It refuses a [[ ]] it cannot turn, with a hint.
func testClauses(f *syntax.File) *Verdict {
	var found *Verdict
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok || found != nil {
			return found == nil
		}
		tc, ok := st.Cmd.(*syntax.TestClause)
		if !ok {
			return true
		}
		args, why := testArgs(tc.X)
		if why != "" {
			found = deny(CodeControlFlow, "write it as one test: [ -f FILE ], [ A = B ], [ N -lt M ], and join tests with && or ||",
				"[[ ]] %s is not allowed", why)
			return false
		}
		call := &syntax.CallExpr{Args: append([]*syntax.Word{litWord("test")}, args...)}
		st.Cmd = call
		return false
	})
	return found
}

func testArgs(x syntax.TestExpr) ([]*syntax.Word, string) {
	switch x := x.(type) {
	case *syntax.Word:
		if !plainTestWord(x) {
			return nil, "with a word that would glob or brace-expand"
		}
		return []*syntax.Word{x}, ""
	case *syntax.UnaryTest:
		op := x.Op.String()
		w, ok := x.X.(*syntax.Word)
		if !ok || !validators.TestUnaryOperators()[op] {
			return nil, "with " + op
		}
		if !plainTestWord(w) {
			return nil, "with a word that would glob or brace-expand"
		}
		return []*syntax.Word{litWord(op), w}, ""
	case *syntax.BinaryTest:
		op := x.Op.String()
		switch op {
		case "==", "=", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef":
		default:
			return nil, "with " + op
		}
		l, lok := x.X.(*syntax.Word)
		r, rok := x.Y.(*syntax.Word)
		if !lok || !rok || !plainTestWord(l) || !plainTestWord(r) {
			return nil, "with a word that would glob, brace-expand or match as a pattern"
		}
		if op == "==" {
			op = "="
		}
		return []*syntax.Word{l, litWord(op), r}, ""
	}
	return nil, "with ( ) or a nested test"
}

// plainTestWord reports whether w means the same inside [[ ]] and as a
// command's word: no unquoted glob or brace character, no tilde.
func plainTestWord(w *syntax.Word) bool {
	return len(w.Parts) > 0 && !unquotedAny(w, "*?[]{}~")
}

func litWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}
