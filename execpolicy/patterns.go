package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/internal/shpattern"
)

// unreadablePatterns refuses a command with a written-out word (no
// expansion in it) that the shell library would read as a pattern it
// cannot compile (see shpattern), or a written-out value (of a variable,
// of a loop's variable) that would be one where the variable is used
// unquoted.
func unreadablePatterns(f *syntax.File) *Verdict {
	var found *Verdict
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false // false keeps Walk out of n's children, not its siblings
		}
		switch n := n.(type) {
		case *syntax.Assign:
			found = unreadableValue(n.Value)
		case *syntax.WordIter:
			for _, it := range n.Items {
				if found = unreadableValue(it); found != nil {
					break
				}
			}
		case *syntax.Word:
			found = unreadableWord(n)
		}
		return found == nil
	})
	return found
}

// unreadableWord refuses w, written out, if a word its braces expand to
// is a pattern the library cannot compile.
func unreadableWord(w *syntax.Word) *Verdict {
	if !unquotedAny(w, "[") {
		return nil // no bracket expression
	}
	split := *w // SplitBraces rewrites the word it is given
	syntax.SplitBraces(&split)
	for b, err := range expand.BracesSeq(noConfig(), &split) {
		if err != nil {
			return nil // too many words: the checker refuses it later
		}
		if !static(b) {
			continue
		}
		if pat, err := expand.Pattern(noConfig(), b); err == nil {
			if why := shpattern.Uncompilable(pat); why != "" {
				return unreadablePattern(pat, why)
			}
		}
	}
	return nil
}

// unreadableValue refuses w, written out, if its text used unquoted would
// be a pattern the library cannot compile.
func unreadableValue(w *syntax.Word) *Verdict {
	if w == nil || !static(w) {
		return nil
	}
	if v, err := expand.Literal(noConfig(), w); err == nil && strings.Contains(v, "[") {
		if why := shpattern.Uncompilable(v); why != "" {
			return unreadablePattern(v, why)
		}
	}
	return nil
}

// noConfig is an empty expansion config of its own: given nil, the
// library fills in and uses one config kept for every caller, which
// checks on other goroutines write at the same time.
func noConfig() *expand.Config { return &expand.Config{} }

// static reports whether w is text alone: literals and quotes of them.
func static(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// unreadablePattern is the refusal of a pattern that cannot be read ("":
// met while expanding, its word unknown).
func unreadablePattern(pat, why string) *Verdict {
	if pat == "" {
		return deny(CodeParse, shpattern.Hint, "a pattern cannot be read: %s", why)
	}
	return deny(CodeParse, shpattern.Hint, "the pattern %q cannot be read: %s", pat, why)
}

// recoverPattern turns the library's panic on a pattern it cannot compile
// into a refusal; any other panic goes on.
func recoverPattern(v **Verdict) {
	p := recover()
	if p == nil {
		return
	}
	why, ok := shpattern.Recovered(p)
	if !ok {
		panic(p)
	}
	*v = unreadablePattern("", why)
}
