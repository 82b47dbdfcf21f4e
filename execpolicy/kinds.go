package execpolicy

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/internal/shpattern"
)

// nodeKinds says which kinds of nodes a parsed command holds, found in
// one walk: the passes that rewrite or refuse one kind each walk the
// whole command, and skip one that has none.
type nodeKinds struct {
	cmdSubst   bool // $( ) or ` `: the $(pwd) and here-document rewrites
	testClause bool // [[ ]]
	assigns    bool // A=1 before a command, or alone
	cd         bool // a command whose first word is cd
	pattern    bool // a text shpattern.Worth counting anywhere: patterns to read
}

func kindsOf(f *syntax.File) nodeKinds {
	var k nodeKinds
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			k.cmdSubst = true
		case *syntax.TestClause:
			k.testClause = true
		case *syntax.Lit:
			k.pattern = k.pattern || shpattern.Worth(n.Value)
		case *syntax.SglQuoted:
			k.pattern = k.pattern || shpattern.Worth(n.Value)
		case *syntax.CallExpr:
			k.assigns = k.assigns || len(n.Assigns) > 0
			k.cd = k.cd || isCd(n)
		}
		return true
	})
	return k
}
