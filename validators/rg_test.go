package validators

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// searchWorkspace builds the workspace the rg, grep, sed and find tests
// share:
//
//	README.md  file.txt  pats.txt  src/a.txt  src/b.go  .git/config
//	ok.sed  evil.sed  wout.sed  cont.sed  nl.sed  (sed scripts, see below)
//	out -> /etc   link.txt -> file.txt   .git/lnk -> ../linked.txt
func searchWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	files := map[string]string{
		"README.md":   "# demo\nTODO\n",
		"file.txt":    "one\ntwo\n",
		"pats.txt":    "TODO\n",
		"src/a.txt":   "TODO: a\n",
		"src/b.go":    "package b // TODO\n",
		".git/config": "[core]\n",
		"ok.sed":      "# fine\ns/a/b/\n/x/{\n  p\n}\n",
		"evil.sed":    "s/a/b/\n1e id\n",
		"wout.sed":    "s/x/y/w /tmp/out\n",
		"cont.sed":    "a\\",   // ends in "a\": the text goes on into the next -e
		"nl.sed":      "a\\\n", // "a\" and a newline: the text ends here
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.Symlink("/etc", filepath.Join(dir, "out")))
	require.NoError(t, os.Symlink("file.txt", filepath.Join(dir, "link.txt")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "linked.txt"), []byte("read through .git/lnk\n"), 0o644))
	require.NoError(t, os.Symlink("../linked.txt", filepath.Join(dir, ".git", "lnk")))
	ws, err := workspace.New(dir)
	require.NoError(t, err)
	return ws
}

// searchCase is one invocation and the Finding code it should get ("" for
// allowed).
type searchCase struct {
	argv []string
	want string
}

// splitArgv splits a command line on spaces, for cases without quoting.
func splitArgv(s string) []string { return strings.Fields(s) }

const (
	codeOutside   = string(workspace.Outside)
	codeProtected = string(workspace.Protected)
)

// runSearchCases checks every case with the validator registered for argv[0].
func runSearchCases(t *testing.T, ws *workspace.Workspace, cases []searchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			v, ok := Lookup(tc.argv[0])
			require.True(t, ok, "no validator for %s", tc.argv[0])
			err := v.Check(&Call{Argv: tc.argv, WS: ws})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			var f *Finding
			require.True(t, errors.As(err, &f), "want %s, got %v", tc.want, err)
			assert.Equal(t, tc.want, f.Code, "%s", f.Reason)
			assert.NotEmpty(t, f.Reason)
			assert.NotEmpty(t, f.Hint)
		})
	}
}

func TestRg(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("rg -n TODO src"), ""},
		{splitArgv("rg TODO"), ""},
		{splitArgv("rg --files"), ""},
		{splitArgv("rg --files src README.md"), ""},
		{splitArgv("rg -l TODO"), ""},
		{splitArgv("rg -c TODO -"), ""},
		{[]string{"rg", "-g", "*.go", "-t", "go", "-i", "todo", "."}, ""},
		{splitArgv("rg -T md -S todo"), ""},
		{splitArgv("rg --json -C 2 TODO src"), ""},
		{splitArgv("rg -C2 -A 3 -B1 --max-count 3 --max-depth 2 -d 1 TODO"), ""},
		{splitArgv("rg -nwvF x src"), ""},
		{splitArgv("rg -e TODO -e FIXME src file.txt"), ""},
		{splitArgv("rg -eTODO src"), ""},
		{splitArgv("rg -f pats.txt src"), ""},
		{splitArgv("rg --file=pats.txt src"), ""},
		{splitArgv("rg -f - src"), ""},
		{splitArgv("rg --ignore-file pats.txt TODO"), ""},
		{splitArgv("rg --hidden --no-ignore -uuu TODO"), ""},
		{splitArgv("rg -. TODO"), ""},
		{splitArgv("rg --type-list"), ""},
		{splitArgv("rg --sort path --color never TODO"), ""},
		{splitArgv("rg --color=always TODO"), ""},
		{[]string{"rg", "-o", "-r", "$1", "T(OD)O", "src"}, ""},
		{splitArgv("rg --replace=X TODO src"), ""},
		{splitArgv("rg --no-pre --no-search-zip --no-follow TODO"), ""},
		{splitArgv("rg -- -z file.txt"), ""}, // after --, -z is the pattern
		{splitArgv("rg -e -z file.txt"), ""}, // and here -e's value
		{splitArgv("rg --version"), ""},

		// Programs run on every file.
		{splitArgv("rg --pre=cat x"), CodeForbiddenFlag},
		{splitArgv("rg --pre cat x"), CodeForbiddenFlag},
		{[]string{"rg", "--pre-glob", "*.gz", "x"}, CodeForbiddenFlag},
		{splitArgv("rg -z x"), CodeForbiddenFlag},
		{splitArgv("rg --search-zip x"), CodeForbiddenFlag},
		{splitArgv("rg -nzi x"), CodeForbiddenFlag},
		{splitArgv("rg --hostname-bin id x"), CodeForbiddenFlag},
		// Symbolic links out.
		{splitArgv("rg -L x"), codeOutside},
		{splitArgv("rg --follow x"), codeOutside},
		{splitArgv("rg -iL x"), codeOutside},
		// Abbreviations and unknown flags.
		{splitArgv("rg --pr cat x"), CodeUnknownFlag},
		{splitArgv("rg --hidd x"), CodeUnknownFlag},
		{splitArgv("rg --frobnicate x"), CodeUnknownFlag},
		{splitArgv("rg -K x"), CodeUnknownFlag},
		// Values.
		{splitArgv("rg -m many x"), CodeBadUsage},
		{splitArgv("rg -A"), CodeBadUsage},
		{splitArgv("rg --json=yes x"), CodeBadUsage},
		// Paths.
		{splitArgv("rg TODO /etc"), codeOutside},
		{splitArgv("rg TODO out"), codeOutside},
		{splitArgv("rg TODO out/passwd"), codeOutside},
		{splitArgv("rg TODO src ../"), codeOutside},
		{splitArgv("rg -e TODO /etc"), codeOutside},
		{splitArgv("rg -f pats.txt /etc"), codeOutside},
		{splitArgv("rg --files /etc"), codeOutside},
		{splitArgv("rg -f ../patterns x ."), codeOutside},
		{splitArgv("rg -f/etc/passwd x"), codeOutside},
		{splitArgv("rg --ignore-file /etc/gitignore x"), codeOutside},
		{splitArgv("rg --ignore-file=out/x x"), codeOutside},
	})
}
