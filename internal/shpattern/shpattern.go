// Package shpattern knows the one way the shell library's patterns fail
// by panicking. The library (mvdan.cc/sh) turns a pattern — a glob, a
// case pattern, the operand of ${x#...} — into a regular expression and
// compiles it with regexp.MustCompile. For some bracket expressions its
// translation is no regular expression at all: in [N-\*] and [N'-*'] the
// range's end is an escaped character, whose order it does not check,
// and compiling panics. The checker refuses such a pattern where it is
// written out (Uncompilable); where one is met anyway, the panic is
// recognised (Recovered) and becomes a refusal.
package shpattern

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// Hint is what to do about a pattern that cannot be read.
const Hint = "write the bracket expression's range in order with plain characters (a quoted or escaped character may not end a range), or quote the word or variable to mean it literally"

// modes are the modes the library compiles patterns in: path globs
// component by component (with and without dotglob), and whole-string
// patterns with and without extglob.
var modes = []pattern.Mode{
	pattern.Filenames | pattern.EntireString | pattern.NoGlobStar,
	pattern.Filenames | pattern.EntireString | pattern.NoGlobStar | pattern.GlobLeadingDot,
	pattern.EntireString | pattern.ExtendedOperators,
	pattern.EntireString,
}

// Uncompilable is why pat, read as a pattern whole or as a path's
// components, gives the library a regular expression that does not
// compile ("" if none does).
func Uncompilable(pat string) string {
	for _, c := range append([]string{pat}, strings.Split(pat, "/")...) {
		if !pattern.HasMeta(c, 0) {
			continue
		}
		for _, mode := range modes {
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

// Recovered reports whether p, a recovered panic, is regexp.MustCompile's
// on a pattern's translation, and why it was.
func Recovered(p any) (why string, ok bool) {
	s, ok := p.(string)
	if !ok || !strings.HasPrefix(s, "regexp: Compile(") {
		return "", false
	}
	return strings.TrimPrefix(s, "regexp: "), true
}
