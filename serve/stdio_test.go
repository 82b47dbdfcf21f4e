package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec/internal/testbin"
)

// buildVtexec builds vtexec and vtexec-serve into dir.
func buildVtexec(tb testing.TB, dir string) string {
	tb.Helper()
	bin, err := testbin.Build(dir)
	require.NoError(tb, err)
	return bin
}

// startServe starts `vtexec serve` on a fresh workspace and connects to
// it over its stdin and stdout.
func startServe(tb testing.TB) (cs *mcp.ClientSession, ws string, stderr *bytes.Buffer, cmd *exec.Cmd) {
	tb.Helper()
	dir := tb.TempDir()
	bin := buildVtexec(tb, dir)
	ws = filepath.Join(dir, "ws")
	require.NoError(tb, os.Mkdir(ws, 0o755))
	cmd = exec.Command(bin, "serve", "--workspace", ws, "--audit", "off")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(tb, err)
	return cs, ws, stderr, cmd
}

func TestServeOverStdio(t *testing.T) {
	cs, ws, stderr, cmd := startServe(t)
	require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("stdio-marker-93c1\n"), 0o644))
	ctx := context.Background()

	init := cs.InitializeResult()
	assert.Equal(t, "vtexec", init.ServerInfo.Name)
	assert.Contains(t, init.Instructions, Rules)

	res, txt, r := call(t, cs, ToolShell, map[string]any{"command": "cat hello.txt"})
	assert.False(t, res.IsError, txt)
	assert.Equal(t, "stdio-marker-93c1\n", r.Stdout)
	assert.Contains(t, txt, "stdout:\nstdio-marker-93c1\n")

	res, txt, r = call(t, cs, ToolShell, map[string]any{"command": "cat /etc/passwd"})
	assert.True(t, res.IsError)
	assert.Equal(t, "outside_workspace", r.Decision.Code)
	assert.Contains(t, txt, "\nhint: use a path inside the workspace")

	_, _, r = call(t, cs, ToolShell, map[string]any{"command": "cd sub"})
	assert.Equal(t, filepath.Join(ws, "sub"), r.Cwd)
	_, _, r = call(t, cs, ToolShell, map[string]any{"command": "pwd"})
	assert.Equal(t, filepath.Join(ws, "sub")+"\n", r.Stdout)

	res, txt, _ = call(t, cs, ToolCheck, map[string]any{"command": "`echo ls` -l"})
	assert.False(t, res.IsError)
	assert.Contains(t, txt, "deny substitution: ")

	// Closing stdin ends the server at once, quietly.
	start := time.Now()
	require.NoError(t, cs.Close())
	assert.Less(t, time.Since(start), 3*time.Second, "the server exits when stdin closes, without SIGTERM")
	assert.True(t, cmd.ProcessState.Success(), "exit status %v", cmd.ProcessState)
	assert.Empty(t, stderr.String())
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"command": "ls"}})
	assert.Error(t, err)
}

func TestServeRefusesBadWorkspace(t *testing.T) {
	bin := buildVtexec(t, t.TempDir())
	out, err := exec.Command(bin, "serve", "--workspace", filepath.Join(t.TempDir(), "missing")).CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, string(out), "is not a directory")
}

// BenchmarkStdioShell measures one shell call (echo) through vtexec
// serve over pipes: JSON-RPC, check, run in the box, answer.
func BenchmarkStdioShell(b *testing.B) { benchStdio(b, ToolShell) }

// BenchmarkStdioCheck is the same for shell_check: no process starts.
func BenchmarkStdioCheck(b *testing.B) { benchStdio(b, ToolCheck) }

func benchStdio(b *testing.B, tool string) {
	cs, _, _, _ := startServe(b)
	defer cs.Close()
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"command": fmt.Sprintf("echo %d", i)}})
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
}

// SIGTERM ends vtexec serve at once, and the commands it runs with it.
func TestServeEndsOnSIGTERM(t *testing.T) {
	cs, ws, _, cmd := startServe(t)
	name := "sigterm-" + filepath.Base(filepath.Dir(ws)) + ".log"
	require.NoError(t, os.WriteFile(filepath.Join(ws, name), nil, 0o644))
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"command": "tail -f " + name}})
	start := time.Now()
	for len(running(t, name)) == 0 {
		require.Less(t, time.Since(start), 5*time.Second, "tail did not start")
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	exited := make(chan struct{})
	go func() { cs.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
		t.Fatalf("vtexec serve still runs 5s after SIGTERM: %s; tail: %v", st, running(t, name))
	}
	for len(running(t, name)) > 0 {
		require.Less(t, time.Since(start), 10*time.Second, "tail outlived vtexec serve")
		time.Sleep(20 * time.Millisecond)
	}
}

// serve --jsonl answers every line, even those still running when its
// input ends.
func TestServeJSONLOverPipes(t *testing.T) {
	dir := t.TempDir()
	bin := buildVtexec(t, dir)
	ws := filepath.Join(dir, "ws")
	require.NoError(t, os.Mkdir(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("jsonl-pipe\n"), 0o644))
	cmd := exec.Command(bin, "serve", "--jsonl", "--workspace", ws, "--audit", "off")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.Stdin = strings.NewReader(`{"id":1,"tool":"shell","arguments":{"command":"cat a.txt"}}` + "\n" +
		`{"id":2,"tool":"shell_check","arguments":{"command":"rm a.txt"}}` + "\n")
	out, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 2, "%s", out)
	byID := map[float64]map[string]any{}
	for _, l := range lines {
		var a map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &a))
		byID[a["id"].(float64)] = a
	}
	assert.Equal(t, "jsonl-pipe\n", byID[1]["result"].(map[string]any)["stdout"])
	assert.Equal(t, "ask", byID[2]["result"].(map[string]any)["decision"])
}

// SIGKILL of vtexec serve leaves no process of any command alive: not
// of a background job, not of a call under way.
func TestServeSIGKILLLeavesNoCommand(t *testing.T) {
	cs, ws, _, cmd := startServe(t)
	name := "sigkill-" + filepath.Base(filepath.Dir(ws)) + ".log"
	require.NoError(t, os.WriteFile(filepath.Join(ws, name), nil, 0o644))
	startJob(t, cs, "tail -f "+name+" | cat")
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"command": "tail -f " + name}})
	start := time.Now()
	for len(running(t, name)) < 2 {
		require.Less(t, time.Since(start), 5*time.Second, "the commands did not start")
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	for len(running(t, name)) > 0 {
		require.Less(t, time.Since(start), 10*time.Second, "a command outlived SIGKILL of vtexec serve: %v", running(t, name))
		time.Sleep(20 * time.Millisecond)
	}
}
