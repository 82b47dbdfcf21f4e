// Package display makes text safe to show a person: what a terminal or a
// harness's window would act on instead of showing — control characters,
// escape sequences (a screen clear, a clipboard write, a title change),
// bidirectional overrides, zero-width and other invisible characters,
// invalid UTF-8 — is written as a visible escape. Every face of vtexec
// shows reasons, hints, questions and names through Text, and a command's
// output on a terminal through Output.
package display

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible reports whether a terminal shows r as a mark of its own: not a
// control or format character, a combining mark (variation selectors,
// the grapheme joiner), a space other than " ", a private or surrogate
// code point, or one of the blank-looking fillers.
func Visible(r rune) bool {
	switch {
	case r < 0x80:
		return unicode.IsPrint(r)
	case unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Zs, unicode.Co, unicode.Cs):
		return false
	case r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0 || r == 0x2800:
		return false
	}
	return unicode.IsPrint(r)
}

// Text is s with every character Visible rejects written as \uXXXX (or
// \UXXXXXXXX) and every invalid byte as \xNN; spaces stay. A newline is
// escaped too: one reason or name is one line.
func Text(s string) string {
	clean := true
	for i, r := range s {
		if !Visible(r) || (r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		escape(&b, s[i:i+size], r, size)
		i += size
	}
	return b.String()
}

// Lines is Text for each line of s: newlines stay, as in a question of
// several lines.
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Text(l)
	}
	return strings.Join(lines, "\n")
}

func escape(b *strings.Builder, raw string, r rune, size int) {
	switch {
	case r == utf8.RuneError && size <= 1:
		fmt.Fprintf(b, `\x%02x`, raw[0])
	case Visible(r):
		b.WriteString(raw)
	case r > 0xffff:
		fmt.Fprintf(b, `\U%08x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

// Output is a command's output as a terminal may show it: newlines, tabs
// and colour sequences (ESC [ … m) stay, every other control character,
// escape sequence, invisible character and invalid byte is escaped as in
// Text. A carriage return is escaped too: it could write over what a
// line said.
func Output(out []byte) []byte {
	clean := true
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		if r == '\x1b' || (r != '\n' && r != '\t' && !Visible(r)) || (r == utf8.RuneError && size <= 1) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return out
	}
	var b strings.Builder
	for i := 0; i < len(out); {
		if n := colourSequence(out[i:]); n > 0 {
			b.Write(out[i : i+n])
			i += n
			continue
		}
		r, size := utf8.DecodeRune(out[i:])
		if r == '\n' || r == '\t' {
			b.WriteRune(r)
		} else {
			escape(&b, string(out[i:i+size]), r, size)
		}
		i += size
	}
	return []byte(b.String())
}

// colourSequence is the length of the SGR sequence (ESC [ digits and ;
// then m) at the start of b, or 0; one that conceals text (8) is not a
// colour.
func colourSequence(b []byte) int {
	if len(b) < 3 || b[0] != '\x1b' || b[1] != '[' {
		return 0
	}
	for i := 2; i < len(b) && i < 64; i++ {
		switch c := b[i]; {
		case c == 'm':
			for _, p := range strings.Split(string(b[2:i]), ";") {
				if strings.TrimLeft(p, "0") == "8" {
					return 0
				}
			}
			return i + 1
		case c >= '0' && c <= '9', c == ';':
		default:
			return 0
		}
	}
	return 0
}
