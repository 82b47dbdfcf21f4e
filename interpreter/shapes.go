package interpreter

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A Shape is one simple command of a request as it is written: its
// static words, and the words known only at run time (a substitution, a
// parameter, arithmetic). A statement with no command (a loop's or a
// group's redirects, x=$(…) alone) has no Words.
type Shape struct {
	// Source is the statement as written, for people.
	Source string
	// Words are the command's words; RunTime marks those whose value is
	// known only when the command runs.
	Words []Word
	// Assigns are the NAME=value settings before the command.
	Assigns []Word
	// Redirects are the statement's redirects, each as written
	// ("> out.txt", "2>&1"), RunTime when the target is known only then.
	Redirects []Word
}

// Word is one word of a shape as written.
type Word struct {
	Text    string
	RunTime bool
}

// Static reports whether every part of the shape is known before it
// runs: then its source can be checked as it stands.
func (s Shape) Static() bool {
	for _, set := range [][]Word{s.Words, s.Assigns, s.Redirects} {
		for _, w := range set {
			if w.RunTime {
				return false
			}
		}
	}
	return true
}

// Program is the program word as written, and whether it is known
// before the command runs.
func (s Shape) Program() (string, bool) {
	if len(s.Words) == 0 {
		return "", true
	}
	return s.Words[0].Text, !s.Words[0].RunTime
}

// RunTimeWords are the shape's words known only at run time.
func (s Shape) RunTimeWords() []string {
	var out []string
	for _, set := range [][]Word{s.Assigns, s.Words, s.Redirects} {
		for _, w := range set {
			if w.RunTime {
				out = append(out, w.Text)
			}
		}
	}
	return out
}

// StaticSource is the statement with its run-time words left out, for
// the check of what is known: the program, its static words and static
// redirects.
func (s Shape) StaticSource() string {
	var parts []string
	for _, set := range [][]Word{s.Words, s.Redirects} {
		for _, w := range set {
			if !w.RunTime {
				parts = append(parts, w.Text)
			}
		}
	}
	return strings.Join(parts, " ")
}

// Shapes returns the shape of every statement of f (parsed from src)
// that runs a command or has redirects, in source order, those inside
// substitutions included. Texts are src's own bytes.
func Shapes(f *syntax.File, src string) []Shape {
	text := func(n syntax.Node) string {
		i, j := int(n.Pos().Offset()), int(n.End().Offset())
		if i < 0 || j > len(src) || i > j {
			return "?"
		}
		return src[i:j]
	}
	var out []Shape
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		var sh Shape
		call, isCall := st.Cmd.(*syntax.CallExpr)
		if isCall {
			for _, a := range call.Assigns {
				w := Word{Text: text(a), RunTime: a.Value != nil && runTime(a.Value)}
				if a.Array != nil || a.Index != nil || a.Append {
					w.RunTime = true
				}
				sh.Assigns = append(sh.Assigns, w)
			}
			for _, a := range call.Args {
				sh.Words = append(sh.Words, Word{Text: text(a), RunTime: runTime(a)})
			}
		}
		for _, r := range st.Redirs {
			w := Word{Text: text(r)}
			if r.Word != nil {
				w.RunTime = runTime(r.Word)
			}
			if r.Hdoc != nil && runTime(r.Hdoc) {
				w.RunTime = true
			}
			sh.Redirects = append(sh.Redirects, w)
		}
		if len(sh.Words) > 0 || len(sh.Redirects) > 0 || len(sh.Assigns) > 0 {
			sh.Source = text(st)
			if st.Semicolon.IsValid() {
				// Without the ; or & that ends it.
				i, j := int(st.Pos().Offset()), int(st.Semicolon.Offset())
				if i <= j && j <= len(src) {
					sh.Source = strings.TrimRight(src[i:j], " \t")
				}
			}
			out = append(out, sh)
		}
		return true
	})
	return out
}

// runTime reports whether n holds anything whose value is known only
// when it runs.
func runTime(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			found = true
		}
		return !found
	})
	return found
}

// Loops reports whether f has a loop whose end depends on what runs
// (while, until, for ((…))).
func Loops(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.WhileClause:
			found = true
		case *syntax.ForClause:
			if _, ok := x.Loop.(*syntax.CStyleLoop); ok {
				found = true
			}
		}
		return !found
	})
	return found
}
