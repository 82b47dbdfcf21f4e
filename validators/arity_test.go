package validators

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Git flags whose arity the specs had wrong, found by tests/arity. Where
// the spec took the next word as the value and git does not, that word
// went unchecked though git reads it as a revision or a path; where git
// takes the next word and the spec did not, a harmless value was refused
// as a path.
func TestGitFlagArity(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t) // out -> /etc
	require.NoError(t, os.Symlink("/etc", filepath.Join(dir, "3")))
	ws := gitWS(t, dir)
	for _, tc := range []struct {
		argv []string
		code string // "" allowed
	}{
		// --unified takes its value only attached (-U3, --unified=3).
		{[]string{"log", "--unified", "3"}, "outside_workspace"},
		{[]string{"log", "--unified=3", "a.txt"}, ""},
		// blame --reverse is a switch: the word after it is the file.
		{[]string{"blame", "--reverse", "out/passwd"}, "outside_workspace"},
		// -l takes the next word, a number.
		{[]string{"log", "-l", "out/passwd"}, "bad_usage"},
		{[]string{"log", "-l", "5", "a.txt"}, ""},
		// The revision parser takes the next word for these.
		{[]string{"log", "--glob", "out/passwd"}, ""},
		{[]string{"log", "--exclude", "out/passwd", "--all"}, ""},
		{[]string{"log", "--max-age", "out/passwd"}, ""},
		{[]string{"log", "--min-age", "out/passwd"}, ""},
		{[]string{"log", "--encoding", "out/passwd"}, ""},
		{[]string{"log", "--decorate-refs", "out/passwd"}, ""},
		{[]string{"log", "--decorate-refs-exclude", "out/passwd"}, ""},
		{[]string{"diff-tree", "--encoding", "out/passwd", "HEAD"}, ""},
		{[]string{"blame", "--encoding", "out/passwd", "a.txt"}, ""},
	} {
		f := gitFinding(t, ws, tc.argv...)
		if tc.code == "" {
			assert.Nil(t, f, "%v", tc.argv)
			continue
		}
		if assert.NotNil(t, f, "%v", tc.argv) {
			assert.Equal(t, tc.code, f.Code, "%v: %s", tc.argv, f.Reason)
		}
	}
}

// git reflog expire --expire and --expire-unreachable take the next word
// (a time); "now" is not a ref.
func TestGitReflogExpireArity(t *testing.T) {
	cmd := gitCmds["reflog"].subs["expire"]
	a, err := gitParse(cmd, []string{"--expire", "now", "--expire-unreachable", "now", "--all"})
	require.NoError(t, err)
	assert.Empty(t, a.Operands)
	assert.Equal(t, []string{"now"}, a.Values("expire"))
	assert.Equal(t, []string{"now"}, a.Values("expire-unreachable"))
}

// FlagArities reports each spelling as the parsers read it.
func TestFlagArities(t *testing.T) {
	got := map[string]FlagArity{}
	for _, fa := range FlagArities() {
		k := fa.Program + " " + fa.Name
		if len(fa.Sub) > 0 {
			k = fa.Program + " " + fa.Sub[0] + " " + fa.Name
		}
		if len(fa.Sub) < 2 {
			got[k] = fa
		}
	}
	for k, want := range map[string][2]any{
		"head -n":           {1, true},
		"head --lines":      {1, true},
		"head -NUM":         {0, false},
		"ls -F":             {0, false},
		"ls --classify":     {0, true},
		"tree -L":           {1, false}, // tree takes the next word even in a cluster
		"tree --charset":    {1, true},
		"jq --arg":          {2, false},
		"find -fprintf":     {2, false},
		"git -C":            {1, false},
		"git --git-dir":     {1, true},
		"git log --glob":    {1, true},
		"git log -U":        {0, true},
		"git stash -m":      {1, true}, // git stash -m is git stash push -m
		"date --set":        {1, true},
		"rg --pre":          {1, true},
		"xargs --max-lines": {0, true},
	} {
		fa, ok := got[k]
		if assert.True(t, ok, k) {
			assert.Equal(t, want[0], fa.Next, k)
			assert.Equal(t, want[1], fa.Attach, k)
		}
	}
	assert.NotEmpty(t, got["date --set"].Forbid)
}
