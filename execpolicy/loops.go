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

// unrolled are what for loops became, { } groups of the statements they
// stand for, and the compound commands vtexec runs as they stand.
type unrolled struct {
	vars loopVars
	// groups are the { } groups standing as a statement or as one part
	// of an && / || list: the loops' and those typed.
	groups map[*syntax.Block]bool
	// subshells are the ( ) groups standing so.
	subshells map[*syntax.Subshell]bool
	// ifs are the if statements standing so, and their elif and else
	// branches (each an IfClause of its own).
	ifs map[*syntax.IfClause]bool
	// noCd: the command has no cd anywhere, so no statement is walked
	// for one.
	noCd bool
}

// hasCd reports whether st has a command whose first word is cd.
func (u *unrolled) hasCd(st *syntax.Stmt) bool { return !u.noCd && hasCd(st) }

// hasCdIn reports whether any of stmts has one.
func (u *unrolled) hasCdIn(stmts []*syntax.Stmt) bool { return !u.noCd && hasCdIn(stmts) }

// unrollLoops replaces each `for NAME in WORDS; do BODY; done` that
// stands as a statement or as one part of an && or || list, at the top
// or inside groups and ifs, by a group of what it stands for: BODY once
// per word WORDS expands to, with $NAME standing for that word, which
// the checks then expand as bash would. WORDS expand in the directory
// the loop starts in, as cds before it in the command leave it. A loop
// in a pipeline, a C-style or select loop, a loop in a loop, a loop
// without "in", and a loop after a cd vtexec cannot follow are left in
// place, for forbiddenSyntax to refuse, or refused here with a hint. It
// also marks the compound commands vtexec runs (see unrollIn).
func (c *Checker) unrollLoops(f *syntax.File, ws *workspace.Workspace, cd bool) (unrolled, *Verdict) {
	u := unrolled{groups: map[*syntax.Block]bool{}, subshells: map[*syntax.Subshell]bool{}, ifs: map[*syntax.IfClause]bool{}, noCd: !cd}
	known := true
	return u, c.unrollIn(f.Stmts, ws.Clone(), &known, &u)
}

// unrollIn unrolls the loops among stmts and marks the compound commands
// vtexec runs: the ( ) and { } groups, ifs and loops standing as a
// statement or as one part of an && / || list, there or inside one
// another (what it leaves unmarked, forbiddenSyntax refuses). It walks
// them in the order they run: cwd is the directory stmts start in,
// moved by the cds among them as the check will move it, and known is
// whether it still is the directory they will run in.
func (c *Checker) unrollIn(stmts []*syntax.Stmt, cwd *workspace.Workspace, known *bool, u *unrolled) *Verdict {
	for _, st := range stmts {
		for _, el := range listElements(st) {
			var v *Verdict
			switch x := el.Cmd.(type) {
			case *syntax.Subshell:
				// A cd inside holds only there.
				u.subshells[x] = true
				inner := *known
				v = c.unrollIn(x.Stmts, cwd.Clone(), &inner, u)
			case *syntax.Block:
				// A cd inside holds after it.
				u.groups[x] = true
				v = c.unrollIn(x.Stmts, cwd, known, u)
			case *syntax.IfClause:
				if v = plainIf(el, u); v != nil {
					return v
				}
				// No cd inside: every branch starts here. Each elif, and
				// the else branch, is an IfClause of its own.
				for ic := x; ic != nil && v == nil; ic = ic.Else {
					u.ifs[ic] = true
					for _, branch := range [][]*syntax.Stmt{ic.Cond, ic.Then} {
						inner := *known
						if v = c.unrollIn(branch, cwd.Clone(), &inner, u); v != nil {
							break
						}
					}
				}
			case *syntax.ForClause:
				if !*known {
					return deny(CodeControlFlow, "run the loop in a call of its own, after the cd",
						"a for loop after a cd vtexec cannot follow (one inside a loop, after ||, or to a directory it cannot resolve) is not allowed")
				}
				var body []*syntax.Stmt
				if body, v = c.unrollLoop(el, x, cwd, u); v != nil {
					return v
				}
				group := &syntax.Block{Lbrace: x.Pos(), Rbrace: x.End(), Stmts: body}
				u.groups[group] = true
				el.Cmd = group
				// The copies hold no loop: this marks their groups and ifs.
				inner := *known
				v = c.unrollIn(body, cwd.Clone(), &inner, u)
				*known = *known && !u.hasCdIn(x.Do)
			default:
				*known = *known && c.followCd(el, cwd, u)
			}
			if v != nil {
				return v
			}
		}
	}
	return nil
}

// plainIf refuses the if statements vtexec does not run: with a cd
// inside (the directory after it would depend on the branch taken).
func plainIf(st *syntax.Stmt, u *unrolled) *Verdict {
	if u.hasCd(st) {
		return deny(CodeControlFlow, "run the cd before the if, in the same command", "a cd inside an if is not allowed: the directory after it would depend on the branch")
	}
	return nil
}

// listElements are the pipelines of a top-level && / || list, in order
// (st alone if it is not one).
func listElements(st *syntax.Stmt) []*syntax.Stmt {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) && len(st.Redirs) == 0 {
		return append(listElements(b.X), listElements(b.Y)...)
	}
	return []*syntax.Stmt{st}
}

// followCd moves cwd as the check will for a `cd DIR` element, and
// reports whether cwd is still known after el: not after a cd it does
// not see plainly. A cd the check will refuse (its word does not expand,
// or its directory is outside) leaves cwd as it was: the command is
// refused for it anyway.
func (c *Checker) followCd(el *syntax.Stmt, cwd *workspace.Workspace, u *unrolled) bool {
	call, ok := el.Cmd.(*syntax.CallExpr)
	if !ok || !isCd(call) {
		return !u.hasCd(el)
	}
	if len(call.Args) != 2 {
		return false
	}
	dir, v := c.expandWords(call.Args[1:], cwd)
	switch {
	case v != nil:
		return true
	case len(dir) != 1:
		return false
	}
	cwd.ChdirPlanned(dir[0])
	return true
}

// unrollLoop returns the statements the for loop st stands for, with
// its words expanded at cwd, and records their loop variable.
func (c *Checker) unrollLoop(st *syntax.Stmt, fc *syntax.ForClause, cwd *workspace.Workspace, u *unrolled) ([]*syntax.Stmt, *Verdict) {
	const hint = "write the commands one by one, or as one command with all the files (cat a b c)"
	wi, ok := fc.Loop.(*syntax.WordIter)
	switch {
	case fc.Select || !ok:
		return nil, deny(CodeControlFlow, hint, "only for NAME in WORDS loops are allowed")
	case !wi.InPos.IsValid():
		return nil, deny(CodeControlFlow, hint, "a for loop without in WORDS loops over the arguments, which a command has none of")
	case st.Background || st.Negated:
		return nil, deny(CodeControlFlow, "run the loop in the foreground, and read its exit code", "a for loop with ! or & is not allowed")
	case nestedLoop(fc.Do):
		return nil, deny(CodeControlFlow, hint, "a loop inside a loop is not allowed")
	}
	if v := forbiddenSyntax(&syntax.File{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: wi.Items}}}}); v != nil {
		return nil, v
	}
	items, v := c.expandWords(wi.Items, cwd)
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
	if len(items) == 0 {
		// A loop over nothing runs nothing and succeeds, like the : builtin.
		return []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: []*syntax.Word{litWord(":")}}}}, nil
	}
	var out []*syntax.Stmt
	for _, item := range items {
		copyOf, err := parseBash(bytes.NewReader(body.Bytes()))
		if err != nil {
			return nil, deny(CodeParse, hint, "cannot unroll the loop: %v", err)
		}
		for _, s := range copyOf.Stmts {
			if u.vars == nil {
				u.vars = loopVars{}
			}
			val := map[string]string{wi.Name.Value: item}
			syntax.Walk(s, func(n syntax.Node) bool {
				if inner, ok := n.(*syntax.Stmt); ok {
					u.vars[inner] = val
				}
				return true
			})
			out = append(out, s)
		}
	}
	return out, nil
}

// hasCd reports whether st has a command whose first word is cd.
func hasCd(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && isCd(call) {
			found = true
		}
		return !found
	})
	return found
}

// isCd reports whether call's first word is cd.
func isCd(call *syntax.CallExpr) bool { return len(call.Args) > 0 && call.Args[0].Lit() == "cd" }

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
