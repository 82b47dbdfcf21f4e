package display

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// hostile holds what a terminal acts on instead of showing.
var hostile = []string{
	"\x1b[2J\x1b[H",              // clear the screen
	"\x1b]52;c;cm0gLXJmIH4=\x07", // write the clipboard
	"\x1b]0;title\x07",           // set the window title
	"\u202eexe.txt",              // right-to-left override
	"a\u200bb",                   // zero-width space
	"\r",                         // return to the line's start
	"\x00", "\x7f", "\x9b", "\xff\xfe",
	"x\u2066y\u2069",
	"\x1b[8mhidden\x1b[0m", // conceal
}

func TestTextMakesEveryHostileCharacterVisible(t *testing.T) {
	for _, h := range hostile {
		got := Text("name " + h + " end")
		for _, r := range got {
			assert.True(t, Visible(r), "%q shows %U raw in %q", h, r, got)
		}
		assert.True(t, strings.HasPrefix(got, "name ") && strings.HasSuffix(got, " end"), got)
	}
	assert.Equal(t, "plain text, ünïcode 日本", Text("plain text, ünïcode 日本"), "printable text is unchanged")
	assert.Equal(t, `a\u000ab`, Text("a\nb"))
	assert.Equal(t, `\xff`, Text("\xff"))
	assert.Equal(t, "one\n\\u001b[2J", Lines("one\n\x1b[2J"))
}

func TestOutputKeepsColoursAndLines(t *testing.T) {
	coloured := "\x1b[1;31merror\x1b[0m: x\n\tat y\n"
	assert.Equal(t, coloured, string(Output([]byte(coloured))))
	for _, h := range hostile {
		got := string(Output([]byte("out " + h + "\n")))
		assert.NotContains(t, got, "\x1b]", h)
		assert.NotContains(t, got, "\x1b[2J", h)
		assert.NotContains(t, got, "\x1b[8m", h)
		for _, r := range strings.ReplaceAll(got, "\x1b[0m", "") { // a reset may stay
			assert.True(t, r == '\n' || Visible(r), "%q shows %U raw in %q", h, r, got)
		}
	}
}
