//go:build harnesscodex

package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHookCodex runs Codex 0.169.0 against a scripted Responses API on
// loopback, with the built vtexec as its PreToolUse hook (installed from
// CodexSnippet). It needs CODEX_BIN (node_modules/.bin/codex) and fails
// without it.
func TestHookCodex(t *testing.T) {
	codex := os.Getenv("CODEX_BIN")
	require.NotEmpty(t, codex, "set CODEX_BIN to node_modules/.bin/codex (npm install @openai/codex@0.169.0)")
	dir, home, work, bin := harnessDirs(t)
	// A directory outside the project, which the model names as workdir.
	outside := filepath.Join(dir, "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "id_rsa"), []byte("SECRET-KEY\n"), 0o600))

	patch := func(header string) string { return "*** Begin Patch\n" + header + "\n+x\n*** End Patch\n" }
	fn := func(name string, args map[string]any) map[string]any {
		b, _ := json.Marshal(args)
		return map[string]any{"type": "function_call", "name": name, "arguments": string(b)}
	}
	// gpt-5.5's built-in metadata gives the freeform apply_patch tool.
	script := []map[string]any{
		// Codex reports the workdir as the event's cwd: it is confined to
		// the session's project, not taken as the workspace (first, so
		// that no earlier call has tied the session to the project).
		fn("exec_command", map[string]any{"cmd": "cat id_rsa", "workdir": outside}),
		fn("exec_command", map[string]any{"cmd": "touch planted.txt", "workdir": outside}),
		fn("exec_command", map[string]any{"cmd": "cat /etc/passwd"}),
		fn("exec_command", map[string]any{"cmd": "printenv GIT_CONFIG_NOSYSTEM"}),
		{"type": "custom_tool_call", "name": "apply_patch", "input": patch("*** Add File: ../escape.txt")},
		{"type": "custom_tool_call", "name": "apply_patch", "input": patch("*** Add File: inside.txt")},
		fn("view_image", map[string]any{"path": "/etc/passwd"}),
		fn("exec_command", map[string]any{"cmd": "ls", "workdir": "."}),
	}
	srv := &mockCodex{script: script}
	addr := serveLoopback(t, srv)

	config := `model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "http://` + addr + `/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

` + CodexSnippet(bin, "")
	require.NoError(t, os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "exec", "--skip-git-repo-check", "--json", "--dangerously-bypass-hook-trust", "run the tools")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())

	results := srv.outputs()
	require.Len(t, results, len(script), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	t.Logf("results: %q", results)

	// A workdir outside: nothing read or written there.
	assert.Contains(t, results["call_0"], "vtexec refused (outside_workspace)")
	assert.NotContains(t, results["call_0"], "SECRET-KEY")
	assert.Contains(t, results["call_1"], "vtexec refused (outside_workspace)")
	assert.NoFileExists(t, filepath.Join(outside, "planted.txt"))
	// A refused command is blocked with vtexec's code.
	assert.Contains(t, results["call_2"], "vtexec refused (outside_workspace)")
	assert.NotContains(t, results["call_2"], "root:")
	// An allowed one was rewritten (updatedInput) and ran through vtexec.
	assert.Regexp(t, `(?m)^1$`, results["call_3"])
	assert.Contains(t, results["call_3"], `[vtexec-cwd] cwd="`+work+`"`)
	// apply_patch: a path outside is blocked, one inside applies.
	assert.Contains(t, results["call_4"], "vtexec refused (outside_workspace)")
	assert.NoFileExists(t, filepath.Join(dir, "escape.txt"))
	assert.NotContains(t, results["call_5"], "vtexec refused")
	assert.FileExists(t, filepath.Join(work, "inside.txt"))
	// view_image outside the workspace is blocked.
	assert.Contains(t, results["call_6"], "vtexec refused (outside_workspace)")
	// The session works in the project after the refusals.
	assert.Contains(t, results["call_7"], "inside.txt")

	// Every tool Codex declared to its model is one the hook classifies.
	srv.mu.Lock()
	defer srv.mu.Unlock()
	require.Contains(t, srv.tools, "exec_command")
	for name := range srv.tools {
		assert.NotEmpty(t, toolClass(Codex, name), "Codex's tool %q is not classified", name)
	}
	t.Logf("Codex's tools: %v", srv.tools)
}

// mockCodex answers POST /v1/responses with SSE: the next scripted item
// (the turn is the number of tool outputs in the request), then text.
type mockCodex struct {
	mu     sync.Mutex
	script []map[string]any
	last   map[string]string // call_id -> output, from the latest request
	tools  map[string]bool   // the tool names the requests declared
}

func (m *mockCodex) outputs() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

func (m *mockCodex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	outs := map[string]string{}
	for _, in := range req.Input {
		if in.Type == "function_call_output" || in.Type == "custom_tool_call_output" {
			outs[in.CallID] = contentText(in.Output)
		}
	}
	m.mu.Lock()
	m.last = outs
	if m.tools == nil {
		m.tools = map[string]bool{}
	}
	for _, tl := range req.Tools {
		switch {
		case tl.Type == "namespace":
			m.tools["mcp__"+strings.TrimPrefix(tl.Name, "mcp__")+"__tool"] = true
		case tl.Name != "":
			m.tools[tl.Name] = true
		default:
			m.tools[tl.Type] = true // tool_search, web_search
		}
	}
	m.mu.Unlock()
	turn := len(outs)
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_end",
		"content": []any{map[string]any{"type": "output_text", "text": "FINAL-ANSWER: done"}}}
	if turn < len(m.script) {
		item = map[string]any{"id": fmt.Sprintf("fc_%d", turn), "call_id": fmt.Sprintf("call_%d", turn)}
		for k, v := range m.script[turn] {
			item[k] = v
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_0"}})
	send(map[string]any{"type": "response.output_item.done", "item": item})
	send(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_0", "usage": map[string]any{
		"input_tokens": 1, "input_tokens_details": nil, "output_tokens": 1, "output_tokens_details": nil, "total_tokens": 2}}})
}
