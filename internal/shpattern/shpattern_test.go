package shpattern

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Uncompilable names exactly the words whose glob panics in the library;
// Recovered knows that panic and no other.
func TestUncompilableIsWhatPanics(t *testing.T) {
	cfg := &expand.Config{ReadDir2: func(string) ([]fs.DirEntry, error) { return nil, nil }}
	for _, src := range []string{`[N-\*]`, `[N'-*']`, `[!N-"*"]`, `?[N-\*]`, `d/[N-\*]/x`,
		`[a-z]*`, `[N-\]]`, `'[N-*]'`, `[[:alpha:]-\*]`, `*.go`, `[a]'.txt'`} {
		f, err := syntax.NewParser().Parse(strings.NewReader("ls "+src), "")
		require.NoError(t, err)
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		panicked := func() (p any) {
			defer func() { p = recover() }()
			_, _ = expand.Fields(cfg, w)
			return nil
		}()
		pat, err := expand.Pattern(nil, w)
		require.NoError(t, err)
		why := Uncompilable(pat)
		assert.Equal(t, panicked != nil, why != "", "%s: %v", src, panicked)
		if panicked != nil {
			_, ok := Recovered(panicked)
			assert.True(t, ok, "%s: %v", src, panicked)
		}
	}
	_, ok := Recovered("index out of range")
	assert.False(t, ok)
	_, ok = Recovered(assert.AnError)
	assert.False(t, ok)
}
