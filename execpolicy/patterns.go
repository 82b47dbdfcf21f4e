package execpolicy

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// The shell library turns a pattern (a glob, a case pattern, the operand
// of ${x#...}) into a regular expression and compiles it with
// regexp.MustCompile. For some bracket expressions its translation is no
// regular expression at all: in [N-\*] and [N'-*'] the range's end is an
// escaped character, whose order it does not check, and compiling panics.
// vtexec refuses such a pattern before anything expands it (the checker,
// a loop's words, the interpreter at run time), and a panic the checker's
// own expansion meets anyway becomes a refusal.

// patternModes are the modes the library compiles patterns in: path
// globs component by component, and whole-string patterns with extglob.
var patternModes = []pattern.Mode{
	pattern.Filenames | pattern.EntireString | pattern.NoGlobStar,
	pattern.Filenames | pattern.EntireString | pattern.NoGlobStar | pattern.GlobLeadingDot,
	pattern.EntireString | pattern.ExtendedOperators,
	pattern.EntireString,
}

// unreadablePatterns refuses a command with a written-out word (no
// expansion in it) that the library would read as a pattern it cannot
// compile, or a written-out value (of a variable, of a loop's variable)
// that would be one where the variable is used unquoted.
func unreadablePatterns(f *syntax.File) *Verdict {
	var found *Verdict
	value := func(w *syntax.Word) {
		if w == nil || !static(w) {
			return
		}
		if v, err := expand.Literal(nil, w); err == nil && strings.Contains(v, "[") {
			if why := uncompilable(v); why != "" {
				found = unreadablePattern(v, why)
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Assign:
			value(n.Value)
		case *syntax.WordIter:
			for _, it := range n.Items {
				value(it)
			}
		}
		w, ok := n.(*syntax.Word)
		if found != nil || !ok || !bracketed(w) {
			return found == nil
		}
		split := *w // SplitBraces rewrites the word it is given
		syntax.SplitBraces(&split)
		for b, err := range expand.BracesSeq(nil, &split) {
			if err != nil {
				break // too many words: the checker refuses it later
			}
			if !static(b) {
				continue
			}
			pat, err := expand.Pattern(nil, b)
			if err != nil {
				continue
			}
			if why := uncompilable(pat); why != "" {
				found = unreadablePattern(pat, why)
				return false
			}
		}
		return true
	})
	return found
}

// bracketed reports whether w has an unquoted "[", where a bracket
// expression begins.
func bracketed(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "[") {
			return true
		}
	}
	return false
}

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

// uncompilable is why pat, read as a pattern whole or as a path's
// components, gives the library a regular expression that does not
// compile ("" if none does).
func uncompilable(pat string) string {
	for _, c := range append([]string{pat}, strings.Split(pat, "/")...) {
		if !pattern.HasMeta(c, 0) {
			continue
		}
		for _, mode := range patternModes {
			expr, err := pattern.Regexp(c, mode)
			if err != nil {
				continue // the library reports it; nothing panics
			}
			if _, err := regexp.Compile(expr); err != nil {
				return err.Error()
			}
		}
	}
	return ""
}

const patternHint = "write the bracket expression's range in order with plain characters (a quoted or escaped character may not end a range), or quote the whole word to mean it literally"

// unreadablePattern is the refusal of a pattern that cannot be read.
func unreadablePattern(word, why string) *Verdict {
	if word == "" {
		return deny(CodeParse, patternHint, "a pattern cannot be read: %s", why)
	}
	return deny(CodeParse, patternHint, "the pattern %q cannot be read: %s", word, why)
}

// recoverPattern turns the library's panic on a pattern it cannot compile
// into a refusal; any other panic goes on.
func recoverPattern(v **Verdict) {
	r := recover()
	if r == nil {
		return
	}
	if s, ok := r.(string); ok && strings.HasPrefix(s, "regexp: Compile(") {
		*v = unreadablePattern("", strings.TrimPrefix(s, "regexp: "))
		return
	}
	panic(r)
}
