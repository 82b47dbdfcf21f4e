package vtexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/codes"
)

func testDir(t testing.TB) string {
	t.Helper()
	if os.Getenv("XDG_STATE_HOME") == "" || !strings.HasPrefix(os.Getenv("XDG_STATE_HOME"), os.TempDir()) {
		hermetic(t)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "a b.txt"), []byte("spaced\n"), 0o644))
	return dir
}

func TestArgvRequestRunsExactlyThoseWords(t *testing.T) {
	dir := testDir(t)
	ctx := context.Background()
	for _, argv := range [][]string{
		{"cat", "src/a b.txt"},
		{"echo", "$(id)", "`id`", "$HOME", "*", "a;b", "x && y", "'q'", `"dq"`, "\\", "\t"},
	} {
		res, err := testEngine.Run(ctx, Request{Argv: argv, Workspace: dir})
		require.NoError(t, err)
		require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
		require.Len(t, res.Decision.Commands, 1)
		assert.Equal(t, argv, res.Decision.Commands[0].Argv)
	}
	res, err := testEngine.Run(ctx, Request{Argv: []string{"echo", "$(id)", "*"}, Workspace: dir})
	require.NoError(t, err)
	assert.Equal(t, "$(id) *\n", res.Stdout)
}

func TestBadRequests(t *testing.T) {
	dir := testDir(t)
	ctx := context.Background()
	for name, req := range map[string]Request{
		"neither":           {Workspace: dir},
		"both":              {Command: "ls", Argv: []string{"ls"}, Workspace: dir},
		"blank":             {Command: " \n\t", Workspace: dir},
		"missing workspace": {Command: "ls", Workspace: filepath.Join(dir, "nope")},
		"workspace is /":    {Command: "ls", Workspace: "/"},
		"cwd outside":       {Command: "ls", Workspace: dir, Cwd: ".."},
		"cwd missing":       {Command: "ls", Workspace: dir, Cwd: "nope"},
		"NUL in argv":       {Argv: []string{"echo", "a\x00b"}, Workspace: dir},
	} {
		_, err := testEngine.Check(ctx, req)
		var re *RequestError
		require.True(t, errors.As(err, &re), name)
		assert.Equal(t, "bad_request", re.Code, name)
		assert.NotEmpty(t, re.Hint, name)
		_, err = testEngine.Run(ctx, req)
		assert.True(t, errors.As(err, &re), name)
	}
}

// A fault of vtexec's own while deciding, outside the checker (the
// interpreter's shapes, the policy, the session), refuses that request
// with its code, for a check and a run alike, and the engine goes on.
func TestDecidingFaultRefusesOnlyItsRequest(t *testing.T) {
	dir := testDir(t)
	ctx := context.Background()
	e := NewEngine(Config{})
	defer e.Close()
	e.decideFault = func(src string) {
		if src == "ls faulty" {
			var m map[string]int
			m["x"]++ // a nil map: a runtime panic
		}
	}
	_, err := e.Check(ctx, Request{Command: "ls faulty", Workspace: dir})
	var re *RequestError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, codes.CheckFailed, re.Code)
	assert.Contains(t, re.Reason, "nil map")
	assert.NotEmpty(t, re.Hint)
	_, err = e.Run(ctx, Request{Command: "ls faulty", Workspace: dir})
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, codes.CheckFailed, re.Code)
	d, err := e.Check(ctx, Request{Command: "ls", Workspace: dir})
	require.NoError(t, err)
	assert.Equal(t, VerdictAllow, d.Decision)
}

func TestRunRefusedDoesNotRun(t *testing.T) {
	dir := testDir(t)
	res, err := testEngine.Run(context.Background(), Request{Command: "cp src/a\\ b.txt copy.txt && cat /etc/passwd", Workspace: dir})
	require.NoError(t, err)
	assert.Equal(t, "deny", string(res.Decision.Decision))
	assert.Equal(t, ExitRefused, res.ExitCode)
	assert.NoFileExists(t, filepath.Join(dir, "copy.txt"), "no part of a refused list runs")
}

func TestRunCwd(t *testing.T) {
	dir := testDir(t)
	res, err := testEngine.Run(context.Background(), Request{Command: "pwd && cd .. && pwd", Workspace: dir, Cwd: "src"})
	require.NoError(t, err)
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.Equal(t, filepath.Join(dir, "src")+"\n"+dir+"\n", res.Stdout)
	assert.Equal(t, dir, res.Cwd)
}

// testEngine decides and runs the requests of tests that need no engine
// of their own.
var testEngine = NewEngine(Config{})

// TestMain closes testEngine when the tests end: its boxes' cgroups go
// with it.
func TestMain(m *testing.M) {
	code := m.Run()
	testEngine.Close()
	os.Exit(code)
}

// A session's file holds its token: a sessions directory that leads into
// the workspace (a link in vtexec's state directory) is refused, for a
// fresh engine and for one that has served the workspace before.
func TestSessionsDirectoryLeadingIntoTheWorkspaceIsRefused(t *testing.T) {
	_, state := hermetic(t)
	dir := testDir(t)
	ctx := context.Background()
	e := NewEngine(Config{})
	defer e.Close()
	for range 3 { // from the second, the sessions directory's place is kept
		_, err := e.Check(ctx, Request{Command: "ls", Workspace: dir, Session: "s1"})
		require.NoError(t, err)
	}

	sessions := filepath.Join(state, "vtexec", "sessions")
	require.NoError(t, os.RemoveAll(sessions))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "kept"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "kept"), sessions))
	for _, e := range []*Engine{NewEngine(Config{}), e} {
		_, err := e.Check(ctx, Request{Command: "ls", Workspace: dir, Session: "s2"})
		var re *RequestError
		require.True(t, errors.As(err, &re), "%v", err)
		assert.Contains(t, re.Reason, "session token")
	}
}
