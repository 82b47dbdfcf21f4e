package codes

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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

// notCodes are literals in the source that spell a code but mean
// something else, each with what it is.
var notCodes = map[string]string{
	"../box.go:disarmed":              "the name of the state directory disarmed names are moved to",
	"../confine/box_linux.go:denied":  "the box's report of the network",
	"../execpolicy/words.go:redirect": "the word a refusal of a redirect's path starts with",
}

// sourceFiles parses the module's Go files outside tests, testdata and
// this package.
func sourceFiles(t *testing.T, visit func(path string, fset *token.FileSet, file *ast.File)) {
	t.Helper()
	require.NoError(t, filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || p == filepath.Join("..", "codes")) && p != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		visit(filepath.ToSlash(p), fset, file)
		return nil
	}))
}

// Every layer answers with the list's constants: no source spells a code
// as a literal, and every code in the list is answered with somewhere.
func TestTheListIsTheSources(t *testing.T) {
	byName := constants(t)
	used := map[Code]bool{}
	files := 0
	sourceFiles(t, func(p string, fset *token.FileSet, file *ast.File) {
		files++
		local := "codes"
		for _, imp := range file.Imports {
			if imp.Path.Value == `"github.com/vtexec/vtexec/codes"` && imp.Name != nil {
				local = imp.Name.Name
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(x.Value)
				if _, listed := Lookup(s); err == nil && listed {
					_, exempt := notCodes[p+":"+s]
					assert.True(t, exempt, "%s spells the code %q: use codes.%s", fset.Position(x.Pos()), s, nameOf(byName, s))
				}
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == local {
					if c, ok := byName[x.Sel.Name]; ok {
						used[c] = true
					}
				}
			}
			return true
		})
	})
	assert.Greater(t, files, 100, "the source was read")
	for _, e := range entries {
		for _, c := range e.Codes {
			assert.True(t, used[c], "%q is listed but no source answers with it", c)
		}
	}
}

// constants reads this package's code constants: name → code.
func constants(t *testing.T) map[string]Code {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "codes.go", nil, 0)
	require.NoError(t, err)
	out := map[string]Code{}
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && vs.Type == nil {
					s, _ := strconv.Unquote(lit.Value)
					out[name.Name] = Code(s)
				}
			}
		}
	}
	listed := 0
	for _, e := range entries {
		for _, c := range e.Codes {
			listed++
			assert.NotEqual(t, "?", nameOf(out, string(c)), "%q has no constant", c)
		}
	}
	assert.Equal(t, listed, len(out), "a constant for every listed code, and no more")
	return out
}

func nameOf(byName map[string]Code, code string) string {
	for n, c := range byName {
		if string(c) == code {
			return n
		}
	}
	return "?"
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
