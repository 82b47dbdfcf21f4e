package shpattern

import "strings"

// MaxWork bounds the bytes the library may read to translate the
// patterns of one request (see Work): past it the request is refused.
// At some 20 ns a byte, a pattern at the bound takes the library a few
// milliseconds to translate; a typed glob reads a few dozen bytes.
const MaxWork = 256 << 10

// meta are the bytes without which a text read as a pattern is read
// once: glob characters, and the "(" of an extglob group (case items and
// [[ ]] read groups whatever the options, and quoting leaves "@(" as is).
const meta = "*?[("

// Worth reports whether reading s as a pattern can cost more than one
// pass over it: whether Work needs to count it.
func Worth(s string) bool { return strings.ContainsAny(s, meta) }

// WorkHint is what to do about patterns too costly to read.
const WorkHint = "close each bracket expression with ] and each extglob group with ), quote a literal [ or (, or use fewer and shorter patterns"

// Work is how many bytes the library reads to translate pat, counted as
// its translator reads them, stopping once past limit. A pattern is read
// once, except that a bracket expression or extglob group left open is
// read to the end of the pattern and then read again as a literal: a
// pattern of n unclosed brackets costs some n² bytes, and of n unclosed
// groups some 2ⁿ. Work counts extglob groups whatever the mode, which
// can only count more.
func Work(pat string, limit int) int {
	r := reader{s: pat, limit: limit}
	for !r.element() {
	}
	return r.work
}

// reader follows the library's translator (mvdan.cc/sh/v3/pattern's
// regexpNext), keeping its positions and reads but writing nothing.
type reader struct {
	s           string
	i           int
	work, limit int
}

// next reads a byte; 0 at the end, and from the moment limit is passed
// (every loop of the reader ends on 0).
func (r *reader) next() byte {
	if r.i >= len(r.s) || r.work > r.limit {
		return 0
	}
	r.work++
	r.i++
	return r.s[r.i-1]
}

func (r *reader) peek() byte {
	if r.i >= len(r.s) || r.work > r.limit {
		return 0
	}
	return r.s[r.i]
}

// element reads one element of the pattern; true at the end.
func (r *reader) element() bool {
	c := r.next()
	switch c {
	case '!', '?', '*', '+', '@':
		if r.peek() == '(' && r.group() {
			return false
		}
	}
	switch c {
	case 0:
		return true
	case '\\':
		r.next()
	case '[':
		r.bracket()
	}
	return false
}

// group reads an extglob group after its operator; false if it is not
// closed, the reader back after the operator to read it as a literal.
func (r *reader) group() bool {
	start := r.i
	r.next() // (
	for {
		switch r.peek() {
		case ')':
			r.next()
			return true
		case '|':
			r.next()
			continue
		case 0:
			r.i = start
			return false
		}
		r.element()
	}
}

// bracket reads a bracket expression after its "["; one left open is
// read to the end, the reader back after the "[" to read it as a literal.
func (r *reader) bracket() {
	lit := r.i
	c := r.next()
	if c == '!' || c == '^' {
		c = r.next()
	}
	if c == ']' {
		c = r.next()
	}
	for {
		switch c {
		case 0:
			r.i = lit
			return
		case '\\':
			c = r.next()
			if c == 0 {
				continue
			}
		case ']':
			return
		case '[':
			r.class()
		}
		c = r.next()
	}
}

// class reads a character class, collating symbol or equivalence class
// after a "[" in a bracket expression ("[:alpha:]"), as the library's
// charClass does: up to its closing pair, or to the end if none.
func (r *reader) class() {
	rest := r.s[r.i:]
	if rest == "" {
		return
	}
	var end string
	switch rest[0] {
	case ':':
		end = ":]"
	case '.':
		end = ".]"
	case '=':
		end = "=]"
	default:
		return
	}
	n := len(rest)
	if j := strings.Index(rest[1:], end); j >= 0 {
		n = 1 + j + len(end)
		r.i += n
	}
	r.work += n
}
