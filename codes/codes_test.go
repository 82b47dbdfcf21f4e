package codes

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite SECURITY.md's table of codes")

const (
	tableStart = "<!-- codes: generated from package codes (go test ./codes -update); do not edit by hand -->\n"
	tableEnd   = "<!-- /codes -->\n"
)

// SECURITY.md's table of codes is Markdown(): a code added here shows
// there, and the table is never edited by hand.
func TestSecurityTableIsGenerated(t *testing.T) {
	path := filepath.Join("..", "SECURITY.md")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	i, j := strings.Index(doc, tableStart), strings.Index(doc, tableEnd)
	require.True(t, i >= 0 && j > i, "SECURITY.md has no table markers")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(doc[:i+len(tableStart)]+Markdown()+doc[j:]), 0o644))
		return
	}
	assert.Equal(t, Markdown(), doc[i+len(tableStart):j], "SECURITY.md's table is stale: go test ./codes -update")
}

// codeInSource finds the codes the source gives an answer: a Code field
// or constant set to a literal, a warning raised by name.
var codeInSource = regexp.MustCompile(`(?:\bCode\w*\s*[:=]\s*|\bwarn\()"([a-z_]+)"`)

// sourceFiles yields the module's Go files outside tests and testdata.
func sourceFiles(t *testing.T, visit func(path, text string)) {
	t.Helper()
	require.NoError(t, filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		visit(p, string(data))
		return nil
	}))
}

// Every code the source answers with is in the list, and every code in
// the list is still answered with somewhere.
func TestTheListIsTheSources(t *testing.T) {
	used := map[string]bool{}
	sourceFiles(t, func(p, text string) {
		for _, m := range codeInSource.FindAllStringSubmatch(text, -1) {
			code := m[1]
			_, ok := Lookup(code)
			assert.True(t, ok, "%s answers with %q, which package codes does not list", p, code)
		}
		if !strings.HasPrefix(filepath.ToSlash(p), "../codes/") {
			for _, e := range entries {
				for _, c := range e.Codes {
					if strings.Contains(text, `"`+string(c)+`"`) {
						used[string(c)] = true
					}
				}
			}
		}
	})
	for _, e := range entries {
		for _, c := range e.Codes {
			assert.True(t, used[string(c)], "%q is listed but no source answers with it", c)
		}
	}
}

func TestLookup(t *testing.T) {
	e, ok := Lookup("outside_workspace")
	require.True(t, ok)
	assert.Equal(t, Refusal, e.Kind)
	assert.True(t, IsSecurity("outside_workspace"))
	assert.False(t, IsSecurity("parse_error"))
	assert.False(t, IsSecurity("no_such_code"))
	seen := map[Code]bool{}
	for _, e := range All() {
		require.NotEmpty(t, e.Meaning)
		for _, c := range e.Codes {
			assert.False(t, seen[c], "%q listed twice", c)
			seen[c] = true
		}
	}
}
