package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/plan"
)

// standinPrograms are the programs the tables decide on that Debian's base
// lacks. git is not one: its checks run the real git.
var standinPrograms = []string{"rg", "tree", "jq", "file", "make"}

// standins returns a new directory, outside every fixture workspace,
// holding an executable for each name that fails if it is ever run.
func standins(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		script := "#!/bin/sh\necho \"stand-in " + name + ": not to be run\" >&2\nexit 97\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	}
	return dir
}

// standinPath is the trusted PATH with stand-ins for names in front of the
// system's directories, so a decision does not depend on what is installed.
func standinPath(t testing.TB, names ...string) string {
	return standins(t, names...) + ":" + plan.TrustedPath
}

// standinEngine is an Engine that finds standinPrograms as stand-ins. It
// checks; it must not run them.
func standinEngine(t testing.TB) *vtexec.Engine {
	return closedAfter(t, vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, standinPrograms...)}))
}

// closedAfter closes e when the test ends: its boxes' cgroups go with it.
func closedAfter(t testing.TB, e *vtexec.Engine) *vtexec.Engine {
	t.Cleanup(func() { e.Close() })
	return e
}

// fixture builds base/ws (the workspace) and base/ws2 (a sibling with a
// secret), and returns the workspace root.
//
//	ws/README.md  ws/file.txt  ws/src/a.txt  ws/src/b.go
//	ws/.git/config  ws/.git/hooks/  ws/.vtexec/policy.toml
//	ws/escape -> /etc           ws/up -> ..          ws/loop -> loop
//	ws/dangle -> /nonexistent/x ws/sibling -> ../ws2 ws/inner -> src
//	ws/.git/lnk -> ../file.txt  ws/scripts/ok.sed
//	ws2/secret.txt
func fixture(t testing.TB) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ws := filepath.Join(base, "ws")
	files := map[string]string{
		"README.md":            "# demo\nline 2\nline 3\n",
		"file.txt":             "one\ntwo\n",
		"src/a.txt":            "TODO: a\n",
		"src/b.go":             "package b // TODO\n",
		".git/config":          "[core]\n",
		".git/hooks/README":    "",
		".vtexec/policy.toml":  "",
		"../ws2/secret.txt":    "secret\n",
		"src/deep/nested.txt":  "x\n",
		"docs/guide.md":        "guide\n",
		"scripts/run.sh":       "echo hi\n",
		"scripts/ok.sed":       "s/one/uno/\n",
		"src/.hidden/file.txt": "h\n",
		"linked.txt":           "read through .git/lnk\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	links := map[string]string{
		"escape":  "/etc",
		"up":      "..",
		"loop":    "loop",
		"dangle":  "/nonexistent/x",
		"sibling": "../ws2",
		"inner":   "src",
		// a link inside .git to a workspace file: replacing the link
		// itself writes inside .git, and writing the file writes what
		// git reads as part of .git.
		".git/lnk": "../linked.txt",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(ws, name)))
	}
	return ws
}

// expandCase fills {{WS}} and {{WS2}} in a table command.
func expandCase(cmd, ws string) string {
	r := strings.NewReplacer("{{WS}}", ws, "{{WS2}}", filepath.Join(filepath.Dir(ws), "ws2"))
	return r.Replace(cmd)
}

// testEngine decides and runs the requests of tests that need no engine
// of their own.
var testEngine = vtexec.NewEngine(vtexec.Config{})

// TestMain closes testEngine when the tests end: its boxes' cgroups go
// with it.
func TestMain(m *testing.M) {
	code := m.Run()
	testEngine.Close()
	os.Exit(code)
}
