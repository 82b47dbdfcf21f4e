package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newServer serves a fresh workspace, with vtexec's own directories
// outside it.
func newServer(t *testing.T) (*Server, string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CI", "true")
	ws := t.TempDir()
	s, err := New(Options{Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, ws
}

// fuzzServer is newServer for a fuzz target: one server for its inputs.
func fuzzServer(f *testing.F) *Server {
	f.Setenv("XDG_STATE_HOME", f.TempDir())
	f.Setenv("XDG_CONFIG_HOME", f.TempDir())
	f.Setenv("CI", "true")
	s, err := New(Options{Workspace: f.TempDir(), AuditLog: "off"})
	require.NoError(f, err)
	f.Cleanup(func() { s.Close() })
	return s
}

// connect opens one client connection to s through the in-memory
// transport.
func connect(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	return connectVersion(t, s, opts, "")
}

// connectVersion connects a client that asks for protocol version v
// ("" means the SDK's latest).
func connectVersion(t *testing.T, s *Server, opts *mcp.ClientOptions, v string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v})
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		waitGone(t, s, ss)
	})
	return cs
}

// waitGone waits until s has cleaned up after the connection ss, so
// that nothing of it writes into a test's directories after the test.
func waitGone(t *testing.T, s *Server, ss *mcp.ServerSession) {
	t.Helper()
	s.mu.Lock()
	c, ok := s.conns[ss]
	s.mu.Unlock()
	if !ok {
		return
	}
	select {
	case <-c.gone:
	case <-time.After(10 * time.Second):
		t.Errorf("the connection was not cleaned up 10s after its client closed")
	}
}

// result is the structured content of a shell call.
type result struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	StdoutB  string `json:"stdout_base64"`
	TimedOut bool   `json:"timed_out"`
	Cwd      string `json:"cwd"`
	Decision struct {
		Decision string `json:"decision"`
		Code     string `json:"code"`
		Hint     string `json:"hint"`
	} `json:"decision"`
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string, result) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	if tool != ToolShell {
		return res, text(t, res), result{}
	}
	return res, text(t, res), structured(t, res)
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func structured(t *testing.T, res *mcp.CallToolResult) result {
	t.Helper()
	var r result
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &r))
	}
	return r
}

func TestToolsAreListedWithSchemasAndRules(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	tools := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		tools[tool.Name] = tool
	}
	require.Contains(t, tools, ToolShell)
	require.Contains(t, tools, ToolCheck)
	for _, name := range []string{ToolShell, ToolCheck} {
		assert.Contains(t, tools[name].Description, Rules)
		in, err := json.Marshal(tools[name].InputSchema)
		require.NoError(t, err)
		assert.Contains(t, string(in), `"required":["command"]`)
		out, err := json.Marshal(tools[name].OutputSchema)
		require.NoError(t, err)
		assert.Contains(t, string(out), `"decision"`)
	}
	in, _ := json.Marshal(tools[ToolShell].InputSchema)
	for _, name := range []string{ToolRead, ToolWrite, ToolKill, ToolList} {
		assert.Contains(t, tools, name)
	}
	for _, field := range []string{"command", "cwd", "timeout_ms", "description", "background"} {
		assert.Contains(t, string(in), `"`+field+`"`)
	}
	out, _ := json.Marshal(tools[ToolShell].OutputSchema)
	for _, field := range []string{"exit_code", "stdout", "stderr", "truncated", "timed_out", "duration_ms", "cwd", "warnings", "confinement", "stdout_base64"} {
		assert.Contains(t, string(out), `"`+field+`"`)
	}
}

func TestShellRunsAllowedCommand(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("marker-5e1f\n"), 0o644))
	cs := connect(t, s, nil)
	res, txt, r := call(t, cs, ToolShell, map[string]any{"command": "cat hello.txt && cat missing.txt", "description": "show the file"})
	assert.False(t, res.IsError, txt)
	assert.Equal(t, 1, r.ExitCode)
	assert.Equal(t, "marker-5e1f\n", r.Stdout)
	assert.Contains(t, r.Stderr, "missing.txt")
	assert.Equal(t, "allow", string(r.Decision.Decision))
	assert.Equal(t, ws, r.Cwd)
	assert.Equal(t, "exit code: 1\nstdout:\nmarker-5e1f\nstderr:\n"+r.Stderr+"cwd: "+ws+"\n", txt)
}

func TestShellWritesFileByRedirect(t *testing.T) {
	s, ws := newServer(t)
	cs := connect(t, s, nil)
	res, txt, _ := call(t, cs, ToolShell, map[string]any{"command": "printf '%s\\n' one two > notes.txt"})
	require.False(t, res.IsError, txt)
	data, err := os.ReadFile(filepath.Join(ws, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "one\ntwo\n", string(data))
}

func TestShellRefusalIsErrorWithCodeAndHint(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	for _, tc := range []struct{ cmd, code, hint string }{
		{"cat /etc/passwd", "outside_workspace", "use a path inside the workspace"},
		{"$(echo ls) -l", "substitution", "write the program's name"},
		{"touch made.txt && curl http://example.com", "forbidden_program", "ask the user to fetch the data"},
	} {
		res, txt, r := call(t, cs, ToolShell, map[string]any{"command": tc.cmd})
		assert.True(t, res.IsError, tc.cmd)
		assert.Contains(t, txt, "refused: deny "+tc.code+": ", tc.cmd)
		assert.Contains(t, txt, "\nhint: "+tc.hint, tc.cmd)
		assert.Equal(t, tc.code, r.Decision.Code)
		assert.Equal(t, 126, r.ExitCode)
	}
	_, err := os.Stat(filepath.Join(s.opts.Workspace, "made.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no part of a refused list runs")
}

func TestShellWithoutElicitationNeedsApproval(t *testing.T) {
	s, ws := newServer(t)
	victim := filepath.Join(ws, "keep.txt")
	require.NoError(t, os.WriteFile(victim, nil, 0o644))
	cs := connect(t, s, nil)
	res, txt, r := call(t, cs, ToolShell, map[string]any{"command": "rm keep.txt"})
	assert.True(t, res.IsError)
	assert.Equal(t, "needs_approval", r.Decision.Code)
	assert.Contains(t, txt, "refused: deny needs_approval: ")
	assert.Contains(t, txt, "\nhint: run it in a terminal to be asked, or approve it ahead: vtexec policy allow -- rm keep.txt; or: a person must approve removals; or move the files into a trash directory")
	assert.FileExists(t, victim)
}

func TestBadRequestIsErrorWithCodeAndHint(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	res, txt, _ := call(t, cs, ToolShell, map[string]any{"command": "ls", "cwd": "../.."})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "error bad_request: cwd: ")
	assert.Contains(t, txt, "\nhint: ")

	res, txt, _ = call(t, cs, ToolShell, map[string]any{"command": "ls", "timeout_ms": -1})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "error bad_request: timeout_ms is negative")

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"cwd": "."}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "command is required")
}

func TestShellTimeout(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "log"), []byte("first\n"), 0o644))
	cs := connect(t, s, nil)
	start := time.Now()
	res, txt, r := call(t, cs, ToolShell, map[string]any{"command": "tail -f log", "timeout_ms": 1000})
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.False(t, res.IsError)
	assert.True(t, r.TimedOut)
	assert.Equal(t, 124, r.ExitCode)
	assert.Equal(t, "first\n", r.Stdout)
	assert.Contains(t, txt, "exit code: 124 (timed out after ")
}

func TestShellOutputNotUTF8(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	res, txt, r := call(t, cs, ToolShell, map[string]any{"command": `printf 'a\377b'`})
	require.False(t, res.IsError, txt)
	assert.Equal(t, "a\uFFFDb", r.Stdout)
	assert.Equal(t, "Yf9i", r.StdoutB)
}

func TestConcurrentCallsAreNotMixedUp(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	const n = 50
	var wg sync.WaitGroup
	got := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolShell,
				Arguments: map[string]any{"command": fmt.Sprintf("echo %d", i)}})
			if err != nil {
				errs[i] = err
				return
			}
			var r result
			b, _ := json.Marshal(res.StructuredContent)
			errs[i] = json.Unmarshal(b, &r)
			got[i] = r.Stdout
			if res.IsError {
				errs[i] = fmt.Errorf("call %d: %s", i, text(t, res))
			}
		})
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, fmt.Sprintf("%d\n", i), got[i])
	}
}

func TestCdHoldsForItsConnectionOnly(t *testing.T) {
	s, ws := newServer(t)
	sub := filepath.Join(ws, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "inner.txt"), []byte("inside sub\n"), 0o644))
	a := connect(t, s, nil)
	b := connect(t, s, nil)

	res, txt, r := call(t, a, ToolShell, map[string]any{"command": "cd sub"})
	require.False(t, res.IsError, txt)
	assert.Equal(t, sub, r.Cwd)
	assert.Contains(t, txt, "cwd: "+sub+"\n")

	_, _, r = call(t, a, ToolShell, map[string]any{"command": "cat inner.txt"})
	assert.Equal(t, "inside sub\n", r.Stdout, "the next call on the same connection starts in sub")
	assert.Equal(t, sub, r.Cwd)

	_, _, r = call(t, b, ToolShell, map[string]any{"command": "pwd"})
	assert.Equal(t, ws+"\n", r.Stdout, "another connection starts at the root")
	assert.Equal(t, ws, r.Cwd)

	res, txt, _ = call(t, b, ToolCheck, map[string]any{"command": "cat inner.txt"})
	assert.False(t, res.IsError, txt)

	// A new connection is a new session, though the old ones persist.
	c := connect(t, s, nil)
	_, _, r = call(t, c, ToolShell, map[string]any{"command": "pwd"})
	assert.Equal(t, ws+"\n", r.Stdout)
	_, _, r = call(t, a, ToolShell, map[string]any{"command": "pwd"})
	assert.Equal(t, sub+"\n", r.Stdout)
}

func TestCheckDecidesWithoutRunning(t *testing.T) {
	s, ws := newServer(t)
	cs := connect(t, s, nil)
	res, txt, _ := call(t, cs, ToolCheck, map[string]any{"command": "touch made.txt"})
	assert.False(t, res.IsError)
	assert.Equal(t, "allow: it would run\n", txt)
	assert.NoFileExists(t, filepath.Join(ws, "made.txt"))

	var d struct {
		Decision string `json:"decision"`
		Code     string `json:"code"`
		Hint     string `json:"hint"`
		Commands []struct {
			Argv []string `json:"argv"`
		} `json:"commands"`
	}
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &d))
	assert.Equal(t, "allow", string(d.Decision))
	require.Len(t, d.Commands, 1)
	assert.Equal(t, []string{"touch", "made.txt"}, d.Commands[0].Argv)

	res, txt, _ = call(t, cs, ToolCheck, map[string]any{"command": "export HOME=/etc"})
	assert.False(t, res.IsError, "a refusal is the answer of a check, not its failure")
	assert.True(t, strings.HasPrefix(txt, "deny assignment: "), txt)
	assert.Contains(t, txt, "\nhint: pass values as arguments")

	_, txt, _ = call(t, cs, ToolCheck, map[string]any{"command": "rm x"})
	assert.True(t, strings.HasPrefix(txt, "ask destructive: "), txt)
}

func TestClip(t *testing.T) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("line %03d", i))
	}
	s := strings.Join(lines, "\n") + "\n"
	got := clip(s, 100, 100)
	assert.True(t, strings.HasPrefix(got, "line 000\n"), got)
	assert.True(t, strings.HasSuffix(got, "line 999\n"), got)
	head, tail, ok := strings.Cut(got, "[… ")
	require.True(t, ok, got)
	assert.True(t, strings.HasSuffix(head, "\n"))
	var bytes, nlines int
	_, err := fmt.Sscanf(tail, "%d bytes, %d lines omitted …]", &bytes, &nlines)
	require.NoError(t, err)
	rest := tail[strings.Index(tail, "\n")+1:]
	assert.Equal(t, len(s), len(head)+bytes+len(rest), "every byte is kept or counted")
	assert.Equal(t, 1000, strings.Count(head, "\n")+nlines+strings.Count(rest, "\n"))

	assert.Equal(t, "short\n", clip("short\n", 100, 100))
	// No line ends: cut between characters.
	long := strings.Repeat("é", 200)
	got = clip(long, 11, 11)
	assert.True(t, strings.HasPrefix(got, "ééééé\n[… "), got)
	assert.True(t, strings.HasSuffix(got, "…]\nééééé"), got)
}

func TestCwdArgumentStartsThereAndHolds(t *testing.T) {
	s, ws := newServer(t)
	sub := filepath.Join(ws, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	cs := connect(t, s, nil)
	_, _, r := call(t, cs, ToolShell, map[string]any{"command": "pwd", "cwd": "sub"})
	assert.Equal(t, sub+"\n", r.Stdout)
	_, _, r = call(t, cs, ToolShell, map[string]any{"command": "pwd"})
	assert.Equal(t, sub+"\n", r.Stdout, "later calls continue from where the last one ended")
	_, _, r = call(t, cs, ToolShell, map[string]any{"command": "pwd", "cwd": ws})
	assert.Equal(t, ws+"\n", r.Stdout)
}

func TestLongOutputTextKeepsHeadAndTail(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	res, txt, r := call(t, cs, ToolShell, map[string]any{"command": "seq 1 100000"})
	require.False(t, res.IsError, txt)
	assert.True(t, strings.HasPrefix(r.Stdout, "1\n2\n3\n"))
	assert.True(t, strings.HasSuffix(r.Stdout, "99999\n100000\n"))
	assert.Contains(t, r.Stdout, " bytes omitted]\n", "vtexec keeps head and tail of what it returns")
	assert.True(t, strings.HasPrefix(txt, "exit code: 0\nstdout:\n1\n2\n3\n"), txt[:40])
	assert.Contains(t, txt, " lines omitted …]\n")
	assert.Contains(t, txt, "\n99999\n100000\nstderr: (empty)\n")
	assert.Contains(t, txt, "note: output beyond vtexec's limit was cut")
	assert.Less(t, len(txt), textHead+textTail+1024, "the text for the model stays small")
}
