package validators

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// rmWS is testWS with a nested repository, links to the root and its
// parent, a dangling link out, and a link sitting inside .git.
func rmWS(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws := testWS(t)
	root := ws.Root()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub", "deep", ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "file"), nil, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "build", "obj"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "build", "obj", "x.o"), []byte("obj"), 0o644))
	for name, target := range map[string]string{
		"self": ".", "up": "..", "dangle": "/nonexistent/x", ".git/lnk": "../a.txt", "tosub": "sub", "loop": "loop",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}
	return ws
}

// rmFinding runs the validator and returns its finding, nil when allowed.
func rmFinding(t *testing.T, ws *workspace.Workspace, argv ...string) *Finding {
	t.Helper()
	v, ok := Lookup(argv[0])
	require.True(t, ok)
	err := v.Check(&Call{Argv: argv, WS: ws})
	if err == nil {
		return nil
	}
	var f *Finding
	require.True(t, errors.As(err, &f), "%v", err)
	assert.NotEmpty(t, f.Reason)
	assert.NotEmpty(t, f.Hint)
	return f
}

func TestRm(t *testing.T) {
	ws := rmWS(t)
	root := ws.Root()
	home, _ := os.UserHomeDir()
	type rc struct {
		argv []string
		ask  bool   // a person is asked
		code string // the finding's code
	}
	for _, c := range []rc{
		// Inside the workspace: always asked, never simply allowed.
		{args("rm", "a.txt"), true, CodeDestructive},
		{args("rm", "-f", "a.txt", "b.txt"), true, CodeDestructive},
		{args("rm", "-rf", "build"), true, CodeDestructive},
		{args("rm", "-r", "build/"), true, CodeDestructive},
		{args("rm", "-R", "--one-file-system", "--preserve-root=all", "build"), true, CodeDestructive},
		{args("rm", "-d", "dir"), true, CodeDestructive},
		{args("rm", "-i", "--interactive=never", "-v", "a.txt"), true, CodeDestructive},
		{args("rm", "missing.txt"), true, CodeDestructive},
		{args("rm", "--", "-f"), true, CodeDestructive},
		{args("rm", root+"/a.txt"), true, CodeDestructive},
		// A link is removed, not its target: links pointing out may go.
		{args("rm", "out"), true, CodeDestructive},
		{args("rm", "-rf", "out"), true, CodeDestructive},
		{args("rm", "dangle"), true, CodeDestructive},
		{args("rm", "self"), true, CodeDestructive},
		{args("rm", "-r", "up"), true, CodeDestructive},
		{args("rm", "loop"), true, CodeDestructive},
		{args("rm", "loop/"), false, "bad_path"},
		{args("rm", "--help"), false, ""},
		// Through a link that leads out, the entry is outside.
		{args("rm", "out/passwd"), false, "outside_workspace"},
		{args("rm", "-r", "out/"), false, "outside_workspace"},
		{args("rm", "-rf", "up/"), false, "outside_workspace"},
		{args("rm", "-rf", "/etc"), false, "outside_workspace"},
		{args("rm", "../x"), false, "outside_workspace"},
		{args("rm", "-rf", "/"), false, "outside_workspace"},
		{args("rm", "-rf", "//"), false, "outside_workspace"},
		{args("rm", "-rf", "/."), false, "outside_workspace"},
		{args("rm", "-rf", ".."), false, "outside_workspace"},
		{args("rm", "-rf", filepath.Dir(root)), false, "outside_workspace"},
		{args("rm", "-rf", home), false, "outside_workspace"},
		{args("rm", "-rf", "/proc/self/cwd"), false, "outside_workspace"},
		// Protected entries, wherever they are, and what holds one.
		{args("rm", ".git/config"), false, "protected_path"},
		{args("rm", "-rf", ".git"), false, "protected_path"},
		{args("rm", "-rf", ".GIT"), false, "protected_path"},
		{args("rm", "-rf", ".git/"), false, "protected_path"},
		{args("rm", ".git/lnk"), false, "protected_path"},
		{args("rm", "-rf", "sub/deep/.git"), false, "protected_path"},
		{args("rm", "-rf", "sub"), false, "protected_path"},
		{args("rm", "-rf", "sub/deep"), false, "protected_path"},
		{args("rm", "-rf", "tosub/"), false, "protected_path"},
		{args("rm", "-rf", "a.txt", "sub"), false, "protected_path"},
		{args("rm", "-f", ".vtexec"), false, "protected_path"},
		// Without -r, a directory holding .git is not removed.
		{args("rm", "-d", "sub"), true, CodeDestructive},
		// The workspace root, however it is spelled.
		{args("rm", "-rf", "."), false, "protected_path"},
		{args("rm", "-rf", "./"), false, "protected_path"},
		{args("rm", "-rf", root), false, "protected_path"},
		{args("rm", "-rf", root+"/"), false, "protected_path"},
		{args("rm", "-rf", "self/"), false, "protected_path"},
		{args("rm", "-rf", "src/.."), false, "protected_path"},
		{args("rm", "-rf", "up/"+filepath.Base(root)), false, "protected_path"},
		{args("rm", "-rf", "src/."), false, CodeBadUsage},
		// Flags and usage.
		{args("rm", "-rf", "--no-preserve-root", "/"), false, CodeForbiddenFlag},
		{args("rm", "--no-preserve-root", "a.txt"), false, CodeForbiddenFlag},
		{args("rm", "-x", "a.txt"), false, CodeUnknownFlag},
		{args("rm", "--recurs", "a.txt"), false, CodeUnknownFlag},
		{args("rm"), false, CodeBadUsage},
		{args("rm", "-rf"), false, CodeBadUsage},
		{args("rm", ""), false, "bad_path"},
	} {
		f := rmFinding(t, ws, c.argv...)
		if c.code == "" {
			assert.Nil(t, f, "%q", c.argv)
			continue
		}
		if assert.NotNil(t, f, "%q", c.argv) {
			assert.Equal(t, c.code, f.Code, "%q: %s", c.argv, f.Reason)
			assert.Equal(t, c.ask, f.Ask, "%q: %s", c.argv, f.Reason)
		}
	}
}

func TestRmReasons(t *testing.T) {
	ws := rmWS(t)
	f := rmFinding(t, ws, "rm", "-rf", "build", "a.txt", "out", "missing")
	require.NotNil(t, f)
	assert.Contains(t, f.Reason, "4 entries")
	assert.Contains(t, f.Reason, `"build" (a directory with 1 file and 1 subdirectory, all removed)`)
	assert.Contains(t, f.Reason, `"a.txt" (a file, 2 bytes)`)
	assert.Contains(t, f.Reason, `"out" (a symbolic link to "/etc"; the link is removed, not what it points to)`)
	assert.Contains(t, f.Reason, `"missing" (does not exist)`)
	assert.Equal(t, rmHint, f.Hint)

	// Names are quoted, so a crafted name cannot pose as a description.
	odd := "x (does not exist); nothing else\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws.Root(), odd), nil, 0o644))
	f = rmFinding(t, ws, "rm", odd)
	assert.Contains(t, f.Reason, `"x (does not exist); nothing else\n" (a file, 0 bytes)`)

	f = rmFinding(t, ws, "rm", "-rf", "/")
	assert.Contains(t, f.Reason, "root of the whole file system")
	assert.Contains(t, f.Reason, "outside the workspace")
	f = rmFinding(t, ws, "rm", "-rf", "..")
	assert.Contains(t, f.Reason, "holding the workspace")
	f = rmFinding(t, ws, "rm", "-rf", ".")
	assert.Contains(t, f.Reason, "workspace root itself")
	f = rmFinding(t, ws, "rm", "-rf", "sub")
	assert.Contains(t, f.Reason, `"sub/deep/.git"`)
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		f = rmFinding(t, ws, "rm", "-rf", home)
		assert.Contains(t, f.Reason, "home directory")
	}
}

func TestRmCwd(t *testing.T) {
	ws := rmWS(t)
	require.NoError(t, ws.Chdir("src"))
	assert.Equal(t, CodeDestructive, rmFinding(t, ws, "rm", "c.go").Code)
	assert.Equal(t, "protected_path", rmFinding(t, ws, "rm", "-rf", "..").Code)
	assert.Equal(t, CodeBadUsage, rmFinding(t, ws, "rm", "-rf", ".").Code)
	assert.Equal(t, "protected_path", rmFinding(t, ws, "rm", "../.git/config").Code)
}

func TestRmExtraRoots(t *testing.T) {
	ws := rmWS(t)
	ro, rw := t.TempDir(), t.TempDir()
	for _, d := range []string{ro, rw} {
		require.NoError(t, os.WriteFile(filepath.Join(d, "f"), nil, 0o644))
	}
	require.NoError(t, ws.AddRoot(ro, false))
	require.NoError(t, ws.AddRoot(rw, true))
	ro, _ = filepath.EvalSymlinks(ro)
	rw, _ = filepath.EvalSymlinks(rw)
	assert.Equal(t, "protected_path", rmFinding(t, ws, "rm", ro+"/f").Code)
	assert.Equal(t, CodeDestructive, rmFinding(t, ws, "rm", rw+"/f").Code)
	assert.Equal(t, "outside_workspace", rmFinding(t, ws, "rm", "-rf", rw).Code)
}

func TestRmTreeLimit(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a/b/f"), nil, 0o644))
	assert.Equal(t, removalTree{files: 1, dirs: 3}, scanRemoval(nil, dir, 10))
	assert.True(t, scanRemoval(nil, dir, 2).truncated)
}
