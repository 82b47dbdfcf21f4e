package validators

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notProgramNames are literals outside the registry that equal a
// program's name but do not name one, each with what it is.
var notProgramNames = map[string]string{
	"../hook/hook.go:test":                    "the hook's own test subcommand",
	"../hook/hook.go:file":                    "a class of harness tool (file edits)",
	"../hook/install.go:type":                 "a key of a harness's settings JSON",
	"../hook/install.go:command":              "a key of a harness's settings JSON",
	"../cmd/vtexec/prompt.go:true":            "the value of CI",
	"../internal/buildinfo/buildinfo.go:true": "a build setting's value (vcs.modified)",
	"../cmd/vtexec/serve.go:vtexec-serve":     "the file name of vtexec's own server, which vtexec serve becomes",
	"../execpolicy/programs.go:vtexec":        "the file names of vtexec's own programs, beside the running one",
	"../execpolicy/programs.go:vtexec-serve":  "the file names of vtexec's own programs, beside the running one",
	"../gitrepo/answers.go:true":              "what git rev-parse --is-bare-repository says",
	"../runner/pipeline.go:type":              "vtexec's own builtin, carried out by the runner (its profile is builtinProfiles)",
	"../runner/pipeline.go:command":           "vtexec's own builtin, carried out by the runner (its profile is builtinProfiles)",
	"../tests/arity/probe.go:grep":            "git grep, a git subcommand the probe drives in its own way",
	"../tests/arity/probe.go:diff":            "git diff, a git subcommand whose options go through the revision parser",
	"../tests/bench/main.go:vtexec":           "the binary the bench builds",
	"../tests/bench/main.go:vtexec-serve":     "the binary the bench builds",
	"../tests/bench/main.go:command":          "the argument of the MCP shell tool",
	"../interpreter/interpreter.go:printf":    "the shell's printf builtin, whose -- the interpreter drops as bash does",
}

// What vtexec knows of a program lives in this package: no other package,
// the arity probe and the bench included, holds a program's name in a
// comparison, a case of a switch, a map key, a constant or a list of two
// or more programs. Test files, which name programs as the data they
// check, are not read.
func TestNoProgramNamesOutsideTheRegistry(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
	}
	for _, n := range profileNames() {
		names[n] = true
	}
	ForbiddenPrograms(func(n string, _ Refused) { names[n] = true })
	for _, r := range DevToolRules {
		names[r.Program] = true
	}
	for n, a := range aliases {
		names[n], names[a] = true, true
	}
	for n := range noAnyArguments() {
		names[n] = true
	}
	seen, found := 0, 0
	require.NoError(t, filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(p)
		if d.IsDir() {
			switch {
			case rel == "../validators", d.Name() == "testdata", strings.HasPrefix(d.Name(), ".") && rel != "..":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		seen++
		name := func(e ast.Expr) (string, bool) {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !names[s] {
				return "", false
			}
			_, exempt := notProgramNames[rel+":"+s]
			return s, !exempt
		}
		report := func(e ast.Expr, where string) {
			if s, ok := name(e); ok {
				found++
				assert.Fail(t, "a program's name outside the registry", "%s: %q in %s (give the program a trait in its profile)", fset.Position(e.Pos()), s, where)
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if x.Op == token.EQL || x.Op == token.NEQ {
					report(x.X, "a comparison")
					report(x.Y, "a comparison")
				}
			case *ast.CaseClause:
				for _, e := range x.List {
					report(e, "a case")
				}
			case *ast.CompositeLit:
				if _, ok := x.Type.(*ast.MapType); ok {
					for _, e := range x.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							report(kv.Key, "a map key")
						}
					}
				}
				if at, ok := x.Type.(*ast.ArrayType); ok {
					if id, ok := at.Elt.(*ast.Ident); ok && id.Name == "string" {
						programs := 0
						for _, e := range x.Elts {
							if _, ok := name(e); ok {
								programs++
							}
						}
						if programs >= 2 {
							report(x.Elts[0], "a list of programs")
						}
					}
				}
			case *ast.GenDecl:
				if x.Tok == token.CONST {
					for _, spec := range x.Specs {
						for _, v := range spec.(*ast.ValueSpec).Values {
							report(v, "a constant")
						}
					}
				}
			}
			return true
		})
		return nil
	}))
	assert.Greater(t, seen, 100, "the source was read")
	t.Logf("%d program names found outside the registry, %d files read", found, seen)
}

func TestProfiles(t *testing.T) {
	assert.True(t, ProfileOf("git").WritesGitDir)
	assert.Equal(t, []string{"status"}, ProfileOf("git").SubcommandArgs([]string{"-C", "x", "status"}))
	assert.Nil(t, ProfileOf("ls").SubcommandArgs)
	assert.Equal(t, "command -v", ProfileOf("command").ProgramLookup([]string{"command", "-v", "ls"}))
	assert.Equal(t, "", ProfileOf("command").ProgramLookup([]string{"command", "ls"}))
	inner, err := ProfileOf("command").Unwrap([]string{"command", "-p", "ls", "-l"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ls", "-l"}, inner)
	_, err = ProfileOf("command").Unwrap([]string{"command", "-x", "ls"})
	assert.Error(t, err)
	assert.True(t, ProfileOf("timeout").LeavesProcessGroup([]string{"timeout", "5", "ls"}))
	assert.False(t, ProfileOf("timeout").LeavesProcessGroup([]string{"timeout", "--foreground", "5", "ls"}))
	assert.True(t, ProfileOf("cat").ReadsInputAsData && ProfileOf("cat").CopiesInput)
	assert.False(t, ProfileOf("python3").ReadsInputAsData)
	assert.True(t, ProfileOf("python").RunsInputAsProgram)
	assert.False(t, ProfileOf("cat").RunsInputAsProgram)
	assert.Equal(t, Profile{}.WritesGitDir, ProfileOf("no-such-program").WritesGitDir)
}

// profileNames are the names of every program and builtin with a
// profile, from every table profileFor reads.
func profileNames() []string {
	var out []string
	for n := range shellProfiles {
		out = append(out, n)
	}
	for _, p := range programs {
		out = append(out, p.name)
	}
	for n := range builtinProfiles() {
		out = append(out, n)
	}
	for n := range networkUses() {
		out = append(out, n)
	}
	for n := range approvalShapes() {
		out = append(out, n)
	}
	out = append(out, readsInputAsData()...)
	out = append(out, inertBuiltins...)
	out = append(out, venvInterpreters...)
	out = append(out, runsInputAsProgram()...)
	for n := range interpreterValued() {
		out = append(out, n)
	}
	return out
}

// A stream of names vtexec knows nothing of leaves nothing kept: the
// profiles kept are those of names the tables hold.
func TestProfilesKeptAreOnlyKnownNames(t *testing.T) {
	known := map[string]bool{}
	for _, n := range profileNames() {
		known[n] = true
	}
	for i := range 1000 {
		require.Zero(t, ProfileOf(fmt.Sprintf("no-such-program-%d", i)).ShellScript)
	}
	require.NotNil(t, ProfileOf("npm").Approval)
	require.True(t, ProfileOf("cat").ReadsInputAsData)
	kept := 0
	profileCache.Range(func(k, _ any) bool {
		kept++
		require.True(t, known[k.(string)], "kept the profile of %q, which no table holds", k)
		return true
	})
	require.GreaterOrEqual(t, kept, 2)
}
