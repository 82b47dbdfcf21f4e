package shpattern

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A pattern whose brackets and groups close is read once.
func TestWorkReadsAClosedPatternOnce(t *testing.T) {
	for _, pat := range []string{"*.go", "[a-z]*.txt", "[!]x]y", "[]]", "[^a]", `\[x`, `[\]]`,
		"[[:alpha:]_]*", "[[.a.]]", "[[=a=]]", "@(a|b).c", "+([0-9])", "!(x)", "d/[0-9]/*", ""} {
		assert.Equal(t, len(pat), Work(pat, MaxWork), "%q", pat)
	}
}

// An unclosed bracket is read to the end and again as a literal: the
// work grows with the square of the brackets; an unclosed group is read
// again for each way out, doubling with each one.
func TestWorkCountsWhatIsReadAgain(t *testing.T) {
	brackets := func(n int) int { return Work(strings.Repeat("[", n)+strings.Repeat("x", n), 1<<40) }
	assert.Greater(t, brackets(200), 3*brackets(100))
	assert.Greater(t, brackets(100), 100*100)
	groups := func(n int) int { return Work(strings.Repeat("@(", n)+"x", 1<<40) }
	assert.GreaterOrEqual(t, groups(12), 2*groups(11))
	// A class with no closing pair is read to the end, each time.
	classes := Work("["+strings.Repeat("[:", 200)+"]", 1<<40)
	assert.Greater(t, classes, 200*200/2)
}

// Work stops once past its limit, however much more the pattern holds.
func TestWorkStopsAtItsLimit(t *testing.T) {
	for _, pat := range []string{strings.Repeat("[", 60000) + "x",
		strings.Repeat("@(", 5000) + "x", "[" + strings.Repeat("[:", 30000)} {
		w := Work(pat, 1000)
		assert.Greater(t, w, 1000, "%.10q", pat)
		assert.LessOrEqual(t, w, 1000+len(pat), "%.10q", pat)
	}
}

// A text is worth counting when it holds a glob character or the "(" an
// extglob group opens with, and not otherwise.
func TestWorthMarksWhatCanBeReadAgain(t *testing.T) {
	for _, s := range []string{"*.go", "a?", "[ab]", "@(x", "[[[", strings.Repeat("@(", 3) + "x"} {
		assert.True(t, Worth(s), s)
	}
	for _, s := range []string{"", "plain text", "a]b", "x)y", "{a,b}"} {
		assert.False(t, Worth(s), s)
	}
}
