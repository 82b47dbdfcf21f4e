package interpreter

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// A shape is a statement as written: which of its words are known only
// at run time, its program, and its text without the ; that ends it.
func TestShapes(t *testing.T) {
	src := `x=$(git ls-files) ; wc -l   "$x" 2>/dev/null; $(echo rm) -rf a; find . -exec ls {} \; ; while read -r l; do echo "$l"; done < in.txt`
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	require.NoError(t, err)
	shapes := Shapes(f, src)
	var sources []string
	for _, s := range shapes {
		sources = append(sources, s.Source)
	}
	assert.Equal(t, []string{"x=$(git ls-files)", "git ls-files", `wc -l   "$x" 2>/dev/null`, "$(echo rm) -rf a", "echo rm",
		`find . -exec ls {} \;`, `while read -r l; do echo "$l"; done < in.txt`, "read -r l", `echo "$l"`}, sources)

	assert.Equal(t, []string{"x=$(git ls-files)"}, shapes[0].RunTimeWords())
	assert.True(t, shapes[1].Static())
	assert.False(t, shapes[2].Static())
	assert.Equal(t, []string{`"$x"`}, shapes[2].RunTimeWords())
	assert.Equal(t, "wc -l 2>/dev/null", shapes[2].StaticSource())
	prog, known := shapes[3].Program()
	assert.Equal(t, "$(echo rm)", prog)
	assert.False(t, known)
	prog, known = shapes[5].Program()
	assert.Equal(t, "find", prog)
	assert.True(t, known)
	assert.True(t, shapes[6].Static(), "the loop's own redirect is static")
	assert.True(t, Loops(f))
}
