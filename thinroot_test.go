package vtexec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The root package is the API and the orchestration of a request: no
// system calls of its own (those are confine's, runner's and the box's)
// and no package-level state but sentinel errors, so two Engines share
// nothing and a test changes nothing another sees.
func TestRootIsThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		seen++
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			assert.NotContains(t, []string{"syscall", "golang.org/x/sys/unix", "golang.org/x/sys/windows", "unsafe"}, path, "%s imports %s", f, path)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					assert.True(t, strings.HasPrefix(name.Name, "Err"), "%s: package-level variable %s", fset.Position(name.Pos()), name.Name)
				}
			}
		}
	}
	assert.Greater(t, seen, 5, "the root's files were read")
}
