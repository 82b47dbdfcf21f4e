package execpolicy

import (
	"bytes"

	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/workspace"
)

// MaxLoopItems caps the iterations of one for loop.
const MaxLoopItems = 64

// loopVars are the values of loop variables in the statements an unrolled
// for loop became, by every statement node of each iteration's copy.
type loopVars map[*syntax.Stmt]map[string]string

// unrollLoops replaces each top-level `for NAME in WORDS; do BODY; done`
// by the list it stands for: BODY once per word WORDS expands to (at the
// cwd the command starts in), with $NAME standing for that word, which
// the checks then expand as bash would. A loop anywhere else (after &&,
// in a pipeline, with a redirect), a C-style or select loop, a loop in a
// loop, a loop without "in", and a loop after a cd are left in place,
// for forbiddenSyntax to refuse, or refused here with a hint.
func (c *Checker) unrollLoops(f *syntax.File, ws *workspace.Workspace) (loopVars, *Verdict) {
	var vars loopVars
	var out []*syntax.Stmt
	sawCd := false
	for _, st := range f.Stmts {
		fc, ok := st.Cmd.(*syntax.ForClause)
		if !ok {
			out = append(out, st)
			sawCd = sawCd || hasCd(st)
			continue
		}
		const hint = "write the commands one by one, or as one command with all the files (cat a b c)"
		wi, ok := fc.Loop.(*syntax.WordIter)
		switch {
		case fc.Select || !ok:
			return nil, deny(CodeControlFlow, hint, "only for NAME in WORDS loops are allowed")
		case !wi.InPos.IsValid():
			return nil, deny(CodeControlFlow, hint, "a for loop without in WORDS loops over the arguments, which a command has none of")
		case st.Background || st.Negated || len(st.Redirs) > 0:
			return nil, deny(CodeControlFlow, "put the redirect on the commands inside the loop", "a for loop with a redirect, ! or & is not allowed")
		case sawCd:
			return nil, deny(CodeControlFlow, "run the loop in a call of its own, after the cd", "a for loop after a cd in the same command is not allowed")
		case nestedLoop(fc.Do):
			return nil, deny(CodeControlFlow, hint, "a loop inside a loop is not allowed")
		}
		if v := forbiddenSyntax(&syntax.File{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: wi.Items}}}}); v != nil {
			return nil, v
		}
		items, v := c.expandWords(wi.Items, ws)
		if v != nil && len(wi.Items) > 0 {
			return nil, v
		}
		if len(wi.Items) == 0 {
			items = nil
		}
		if len(items) > MaxLoopItems {
			return nil, deny(CodeTooLong, "loop over fewer words, or split the work", "the loop runs %d times; at most %d", len(items), MaxLoopItems)
		}
		var body bytes.Buffer
		printer := syntax.NewPrinter()
		for _, s := range fc.Do {
			printer.Print(&body, s)
			body.WriteByte('\n')
		}
		for _, item := range items {
			copyOf, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(body.Bytes()), "")
			if err != nil {
				return nil, deny(CodeParse, hint, "cannot unroll the loop: %v", err)
			}
			for _, s := range copyOf.Stmts {
				if vars == nil {
					vars = loopVars{}
				}
				val := map[string]string{wi.Name.Value: item}
				syntax.Walk(s, func(n syntax.Node) bool {
					if inner, ok := n.(*syntax.Stmt); ok {
						vars[inner] = val
					}
					return true
				})
				out = append(out, s)
			}
		}
		sawCd = sawCd || hasCdIn(fc.Do)
	}
	f.Stmts = out
	return vars, nil
}

// hasCd reports whether st has a command whose first word is cd.
func hasCd(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 && call.Args[0].Lit() == "cd" {
			found = true
		}
		return !found
	})
	return found
}

func hasCdIn(stmts []*syntax.Stmt) bool {
	for _, s := range stmts {
		if hasCd(s) {
			return true
		}
	}
	return false
}

func nestedLoop(stmts []*syntax.Stmt) bool {
	found := false
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.ForClause, *syntax.WhileClause:
				found = true
			}
			return !found
		})
	}
	return found
}
