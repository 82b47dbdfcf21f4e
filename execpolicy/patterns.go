package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/internal/shpattern"
	"github.com/vtexec/vtexec/validators"
)

// checkPatterns refuses a command with a pattern the shell library
// could not compile (see shpattern), or patterns that would take it too
// long to read (shpattern.Work, summed over the command): a word with
// pattern characters unquoted, each word its braces expand to, and a
// written-out value (of a variable, of a loop's variable) that is one
// where the variable is used unquoted. Only a written-out pattern (no
// expansion in it) is compiled here; the work of any is counted.
func checkPatterns(f *syntax.File) *Verdict {
	p := patterns{left: shpattern.MaxWork}
	var hereDoc *syntax.Word
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			hereDoc = n.Hdoc // its text is no pattern; what it runs has words
		case *syntax.Word:
			if n != hereDoc {
				p.word(n)
			}
		case *syntax.Assign:
			p.value(n.Value)
		case *syntax.WordIter:
			for _, it := range n.Items {
				p.value(it)
			}
		}
		return p.found == nil // false keeps Walk out of n's children, not its siblings
	})
	return p.found
}

// patterns is what checkPatterns found so far: the work it may still
// count, and its refusal.
type patterns struct {
	left  int
	found *Verdict
}

// read counts the work of reading pat; false once refused.
func (p *patterns) read(pat string) bool {
	if p.found != nil {
		return false
	}
	p.left -= shpattern.Work(pat, p.left)
	if p.left < 0 {
		p.found = deny(validators.CodeCheckLimit, shpattern.WorkHint,
			"the command's patterns would take the shell library more than %d bytes of reading to translate: a bracket expression or extglob group left open is read to the end of its pattern, and again for each one after it", shpattern.MaxWork)
		return false
	}
	return true
}

// word counts, and compiles if written out, each pattern w's braces
// expand to.
func (p *patterns) word(w *syntax.Word) {
	if p.found != nil || !unquotedAny(w, "*?[") {
		return
	}
	brackets := unquotedAny(w, "[")
	split := *w // SplitBraces rewrites the word it is given
	syntax.SplitBraces(&split)
	for b, err := range expand.BracesSeq(noConfig(), &split) {
		if err != nil {
			return // too many words: the checker refuses it later
		}
		if !static(b) {
			if !p.read(patternText(b)) {
				return
			}
			continue
		}
		pat, err := expand.Pattern(noConfig(), b)
		if err != nil {
			continue
		}
		if !p.read(pat) {
			return
		}
		if brackets {
			if why := shpattern.Uncompilable(pat); why != "" {
				p.found = unreadablePattern(pat, why)
				return
			}
		}
	}
}

// value counts, and compiles, w's text if w is written out and its text
// used unquoted would be a pattern.
func (p *patterns) value(w *syntax.Word) {
	if p.found != nil || w == nil || !static(w) {
		return
	}
	v, err := expand.Literal(noConfig(), w)
	if err != nil || !shpattern.Worth(v) || !p.read(v) {
		return
	}
	if strings.Contains(v, "[") {
		if why := shpattern.Uncompilable(v); why != "" {
			p.found = unreadablePattern(v, why)
		}
	}
}

// patternText stands for the pattern of w, which holds expansions: its
// unquoted text as written, and for each other part as many plain bytes
// as its source (what it expands to is bounded and quoted, or checked
// where it is set).
func patternText(w *syntax.Word) string {
	var sb strings.Builder
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			sb.WriteString(l.Value)
			continue
		}
		if n := int(part.End().Offset()) - int(part.Pos().Offset()); n > 0 {
			sb.WriteString(strings.Repeat("x", n))
		}
	}
	return sb.String()
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
