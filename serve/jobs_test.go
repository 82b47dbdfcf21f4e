package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jobOut is the structured content of shell_read and shell_kill.
type jobOut struct {
	ID           string `json:"id"`
	Running      bool   `json:"running"`
	Output       string `json:"output"`
	OutputBase64 string `json:"output_base64"`
	DroppedBytes int64  `json:"dropped_bytes"`
	ExitCode     *int   `json:"exit_code"`
	Killed       bool   `json:"killed"`
	Result       *struct {
		ExitCode int    `json:"exit_code"`
		Job      string `json:"job"`
	} `json:"result"`
}

func jobCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string, jobOut) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	var out jobOut
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &out))
	}
	return res, text(t, res), out
}

// startJob starts command in the background and returns its job id.
func startJob(t *testing.T, cs *mcp.ClientSession, command string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"command": command, "background": true}})
	require.NoError(t, err)
	txt := text(t, res)
	require.False(t, res.IsError, txt)
	var r struct {
		Job string `json:"job"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(b, &r))
	require.NotEmpty(t, r.Job, txt)
	assert.Contains(t, txt, r.Job)
	return r.Job
}

// readUntil reads job id until its output so far contains want, or
// the deadline passes; it returns all output read.
func readUntil(t *testing.T, cs *mcp.ClientSession, id, want string, within time.Duration) string {
	t.Helper()
	var all strings.Builder
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) && !strings.Contains(all.String(), want) {
		res, txt, out := jobCall(t, cs, ToolRead, map[string]any{"id": id, "wait_ms": 200})
		require.False(t, res.IsError, txt)
		all.WriteString(out.Output)
	}
	return all.String()
}

// The acceptance run: tail -f in the background sees a line appended to
// its file within a second; shell_kill ends it and every process.
func TestBackgroundFollowsAFileAndIsKilled(t *testing.T) {
	s, ws := newServer(t)
	cs := connect(t, s, nil)
	name := "follow-" + filepath.Base(ws) + ".log"
	log := filepath.Join(ws, name)
	require.NoError(t, os.WriteFile(log, []byte("first\n"), 0o644))
	id := startJob(t, cs, "tail -f "+name)
	assert.Contains(t, readUntil(t, cs, id, "first", 5*time.Second), "first")

	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("appended-9d1\n")
	require.NoError(t, err)
	f.Close()
	appended := time.Now()
	got := readUntil(t, cs, id, "appended-9d1", time.Second)
	assert.Contains(t, got, "appended-9d1")
	assert.Less(t, time.Since(appended), time.Second+250*time.Millisecond)
	assert.NotContains(t, got, "first", "a read returns only what is new")

	_, listTxt, _ := jobCall(t, cs, ToolList, map[string]any{})
	assert.Contains(t, listTxt, id+"  tail -f "+name+"  (running")

	res, txt, out := jobCall(t, cs, ToolKill, map[string]any{"id": id})
	require.False(t, res.IsError, txt)
	assert.False(t, out.Running)
	assert.True(t, out.Killed)
	require.NotNil(t, out.ExitCode, txt)
	require.NotNil(t, out.Result)
	assert.Equal(t, id, out.Result.Job)
	// SIGKILL is delivered at once; the process may take a moment more
	// to be gone under load.
	assert.Eventually(t, func() bool { return len(running(t, name)) == 0 }, time.Second, 10*time.Millisecond, "tail outlived shell_kill")

	// Ended jobs stay readable; an unknown id is a clear error.
	_, _, again := jobCall(t, cs, ToolRead, map[string]any{"id": id})
	assert.False(t, again.Running)
	res, txt, _ = jobCall(t, cs, ToolRead, map[string]any{"id": "j999"})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "no_such_job")
}

// A command that ends by itself reports its exit code to shell_read.
func TestBackgroundEndsWithExitCode(t *testing.T) {
	s, ws := newServer(t)
	cs := connect(t, s, nil)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644))
	id := startJob(t, cs, "cat a.txt && ls missing-4c2")
	deadline := time.Now().Add(5 * time.Second)
	var all strings.Builder
	var out jobOut
	for time.Now().Before(deadline) {
		_, _, out = jobCall(t, cs, ToolRead, map[string]any{"id": id, "wait_ms": 500})
		all.WriteString(out.Output)
		if !out.Running {
			break
		}
	}
	require.False(t, out.Running)
	require.NotNil(t, out.ExitCode)
	assert.NotZero(t, *out.ExitCode)
	assert.Contains(t, all.String(), "alpha\n", "stdout on the terminal, with \\n as the program wrote it")
	assert.Contains(t, all.String(), "missing-4c2", "stderr on the terminal")
}

// A refused background command is refused as in the foreground, and no
// job is made.
func TestBackgroundRefusedIsError(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	res, txt, r := call(t, cs, ToolShell, map[string]any{"command": "curl https://example.com", "background": true})
	assert.True(t, res.IsError)
	assert.Equal(t, "deny", string(r.Decision.Decision), txt)
	assert.NotEmpty(t, r.Decision.Hint)
	_, listTxt, _ := jobCall(t, cs, ToolList, map[string]any{})
	assert.Equal(t, "no background jobs\n", listTxt)
	s.mu.Lock()
	assert.Zero(t, s.liveJobs)
	s.mu.Unlock()
}

// Typing into a program that reads data needs no approval.
func TestBackgroundWriteToDataReader(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	id := startJob(t, cs, "head -n 2")
	res, txt, _ := jobCall(t, cs, ToolWrite, map[string]any{"id": id, "input": "one\n"})
	require.False(t, res.IsError, txt)
	assert.Contains(t, readUntil(t, cs, id, "one", 5*time.Second), "one\n")
	jobCall(t, cs, ToolWrite, map[string]any{"id": id, "input": "two\n"})
	deadline := time.Now().Add(5 * time.Second)
	var out jobOut
	for out.ExitCode == nil && time.Now().Before(deadline) {
		_, _, out = jobCall(t, cs, ToolRead, map[string]any{"id": id, "wait_ms": 500})
	}
	require.NotNil(t, out.ExitCode, "head ended after two lines")
	assert.Zero(t, *out.ExitCode)
	res, txt, _ = jobCall(t, cs, ToolWrite, map[string]any{"id": id, "input": "three\n"})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "job_ended")
}

// Typing into a program that may read its input as code needs a
// person's approval of exactly that input: refused where none can be
// asked, typed on once, not typed on deny.
func TestBackgroundWriteToOtherProgramsNeedsApproval(t *testing.T) {
	s, _ := newServer(t)
	cs := connect(t, s, nil)
	id := startJob(t, cs, "sed s/a/b/")
	res, txt, _ := jobCall(t, cs, ToolWrite, map[string]any{"id": id, "input": "aaa\n"})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "needs_approval")
	_, _, out := jobCall(t, cs, ToolRead, map[string]any{"id": id, "wait_ms": 300})
	assert.Empty(t, out.Output, "nothing was typed")

	eachMode(t, func(t *testing.T, version string) {
		var asked []string
		answer := "once"
		handler := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
		}
		pc := connectVersion(t, s, &mcp.ClientOptions{ElicitationHandler: handler}, version)
		id := startJob(t, pc, "sed s/a/b/")
		res, txt, _ := jobCall(t, pc, ToolWrite, map[string]any{"id": id, "input": "aaa\n"})
		require.False(t, res.IsError, txt)
		require.Len(t, asked, 1)
		assert.Contains(t, asked[0], `input: aaa\u000a`, "the exact input is shown, escaped")
		assert.Contains(t, asked[0], "command: sed s/a/b/")
		assert.Contains(t, readUntil(t, pc, id, "baa", 5*time.Second), "baa\n", "sed read the typed line")
		answer = "deny"
		res, txt, _ = jobCall(t, pc, ToolWrite, map[string]any{"id": id, "input": "a2\n"})
		assert.True(t, res.IsError)
		assert.Contains(t, txt, "denied")
		_, _, out := jobCall(t, pc, ToolRead, map[string]any{"id": id, "wait_ms": 300})
		assert.NotContains(t, out.Output, "b2")
	})
}

// At most MaxJobs run at once; a stopped one makes room.
func TestBackgroundJobLimit(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "l"), nil, 0o644))
	s, err := New(Options{Workspace: ws, AuditLog: "off", MaxJobs: 2})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	cs := connect(t, s, nil)
	a := startJob(t, cs, "tail -f l")
	startJob(t, cs, "tail -f l")
	res, txt, _ := call(t, cs, ToolShell, map[string]any{"command": "tail -f l", "background": true})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "too_many_jobs")
	jobCall(t, cs, ToolKill, map[string]any{"id": a})
	startJob(t, cs, "tail -f l")
}

// A background command's cd does not move the connection, and jobs are
// the connection's own.
func TestBackgroundKeepsCwdAndIsPerConnection(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	cs := connect(t, s, nil)
	id := startJob(t, cs, "cd sub && pwd")
	assert.Contains(t, readUntil(t, cs, id, "/sub", 5*time.Second), "/sub")
	_, _, r := call(t, cs, ToolShell, map[string]any{"command": "pwd"})
	assert.Equal(t, ws+"\n", r.Stdout)
	other := connect(t, s, nil)
	res, txt, _ := jobCall(t, other, ToolRead, map[string]any{"id": id})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "no_such_job")
}

// When the client goes away, its background commands die with their
// whole tree.
func TestBackgroundDiesWithConnection(t *testing.T) {
	s, ws := newServer(t)
	name := "conn-" + filepath.Base(ws) + ".log"
	require.NoError(t, os.WriteFile(filepath.Join(ws, name), nil, 0o644))
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	startJob(t, cs, "tail -f "+name+" | cat")
	deadline := time.Now().Add(5 * time.Second)
	for len(running(t, name)) == 0 {
		require.True(t, time.Now().Before(deadline), "tail did not start")
		time.Sleep(20 * time.Millisecond)
	}
	cs.Close()
	for len(running(t, name)) > 0 {
		require.True(t, time.Now().Before(deadline), "the job outlived its connection")
		time.Sleep(20 * time.Millisecond)
	}
	waitGone(t, s, ss)
}

func TestOutBuffer(t *testing.T) {
	o := newOutBuffer(8)
	o.Write([]byte("abc"))
	o.Write([]byte("\xc3")) // the first byte of é
	data, dropped := o.take(false)
	assert.Equal(t, "abc", string(data), "a character not yet complete waits")
	assert.Zero(t, dropped)
	o.Write([]byte("\xa9"))
	data, _ = o.take(false)
	assert.Equal(t, "é", string(data))

	o.Write([]byte("0123456789"))
	data, dropped = o.take(false)
	assert.Equal(t, "23456789", string(data))
	assert.EqualValues(t, 2, dropped)
	_, dropped = o.take(false)
	assert.Zero(t, dropped, "dropped counts since the last read")

	o.Write([]byte("1234567é")) // é is cut at the front when dropping
	o.Write([]byte("x"))
	data, dropped = o.take(true)
	assert.True(t, strings.HasPrefix(string(data), "234567é") || strings.HasPrefix(string(data), "34567é"), "%q", data)
	assert.EqualValues(t, 10-len(data), dropped)

	o.Write([]byte("\xc3"))
	data, _ = o.take(true)
	assert.Equal(t, "\xc3", string(data), "at the end, everything is returned")
}

// A connection's session (its cwd and approvals) is forgotten when the
// connection ends: no state file is left behind per connection.
func TestSessionFileRemovedWithConnection(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	call(t, cs, ToolShell, map[string]any{"command": "cd sub"})
	sessions := func() []string {
		m, err := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "vtexec", "sessions", "mcp-*"))
		require.NoError(t, err)
		return m
	}
	require.NotEmpty(t, sessions(), "the connection's session is kept while it lasts")
	cs.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(sessions()) > 0 {
		require.True(t, time.Now().Before(deadline), "left behind: %v", sessions())
		time.Sleep(10 * time.Millisecond)
	}
	waitGone(t, s, ss)
}
