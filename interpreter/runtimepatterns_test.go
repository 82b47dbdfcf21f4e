package interpreter

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/codes"
)

// Off the main goroutine a run-time value may not stand where the
// library reads a pattern; written-out values, quoted values, numbers,
// the environment and the pipeline's last command stay as they were.
func TestRunTimePatterns(t *testing.T) {
	parse := func(src string) *syntax.File {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		require.NoError(t, err, src)
		return f
	}
	for _, src := range []string{
		`f=$(ls); cat $f | wc -l`,
		`for f in *; do cat $f | wc -l; done`,
		`for f in $(ls); do cat $f | wc -l; done`,
		`read -r f; echo $f | wc -c`,
		`mapfile -t lines < x; echo ${lines[0]} | wc -c`,
		`echo $(date) | wc -c`,
		`f=$(ls); echo "${x#$f}" | wc -c`,
		`f=$(ls); echo "${x//$f/y}" | wc -c`,
		`f=$(ls); { case a in $f) ls;; esac; } | wc -l`,
		`f=$(ls); [[ a == $f ]] | cat`,
		`f=$(ls); wc -l <(cat $f)`,
		`x=a; echo ${!x} | wc -c`,
		`echo $PWD | wc -c`,
		`f=$(ls); ls $f | sort | head -n 1`,
		`: ${x:=$(ls)}; echo $x | wc -c`,
		`getopts b: o -b '[N-\*]'; echo $OPTARG | wc -c`,
		`f=$(ls); echo ${x:-$f} | wc -c`,
	} {
		r := RunTimePatterns(parse(src))
		if assert.NotNil(t, r, src) {
			assert.Equal(t, codes.Expansion, r.Code, src)
			assert.NotEmpty(t, r.Hint, src)
		}
	}
	for _, src := range []string{
		`f=$(ls); cat "$f" | wc -l`,
		`f=$(ls); wc -l $f`,
		`cat x | grep $(echo a)`,
		`x=a.txt; cat $x | wc -l`,
		`for f in a b; do cat $f | wc -l; done`,
		`echo $PATH | tr : '\n'`,
		`f=$(ls); echo ${#f} | wc -c`,
		`n=$(ls | wc -l); echo $((n + 1)) | cat`,
		`f=$(ls); x=${f#a}; echo "$x" | wc -c`,
		`f=$(ls); echo "$f" | grep -c "${f%.txt}"`,
		`cat x | wc -l`,
	} {
		assert.Nil(t, RunTimePatterns(parse(src)), src)
	}
}

// The environment is the one run-time input the script does not set: a
// value the library could not read as a pattern stops the run before it
// starts.
func TestUnreadableEnvironmentStops(t *testing.T) {
	assert.Nil(t, unreadableEnv([]string{"PATH=/usr/bin:/bin", "HOME=/tmp/[a-z]", "EMPTY=", "NOEQ"}))
	s := unreadableEnv([]string{"PATH=/usr/bin", `X=a/[N-\*]`})
	require.NotNil(t, s)
	assert.Equal(t, codes.ParseError, s.Code)
	assert.Contains(t, s.Reason, "X")
}

// A value the library would take minutes to read (unclosed brackets,
// unclosed extglob groups) stops the run too, before anything reads it;
// a long value whose brackets close does not.
func TestCostlyEnvironmentStops(t *testing.T) {
	closed := strings.Repeat("[a]", 20000) + "*"
	assert.Nil(t, unreadableEnv([]string{"JSON=" + closed}))
	for _, v := range []string{strings.Repeat("[", 5000) + strings.Repeat("x", 5000) + "*",
		strings.Repeat("@(", 40) + "x*", strings.Repeat("@(", 40) + "x"} {
		s := unreadableEnv([]string{"PATH=/usr/bin", "LONG=" + v})
		require.NotNil(t, s)
		assert.Equal(t, codes.CheckLimit, s.Code)
		assert.Contains(t, s.Reason, "LONG")
	}
}
