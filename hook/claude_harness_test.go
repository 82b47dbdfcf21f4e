//go:build harnessclaude

package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHookClaudeCode runs Claude Code 2.1.330 (-p) against a scripted Messages
// API on loopback, with the built vtexec as its PreToolUse hook. It needs
// CLAUDE_BIN (node_modules/.bin/claude) and fails without it.
func TestHookClaudeCode(t *testing.T) {
	claude := os.Getenv("CLAUDE_BIN")
	require.NotEmpty(t, claude, "set CLAUDE_BIN to node_modules/.bin/claude (npm install @anthropic-ai/claude-code@2.1.330)")
	dir, home, work, bin := harnessDirs(t)
	require.NoError(t, os.WriteFile(filepath.Join(work, "README.md"), []byte("README-CONTENT-51\n"), 0o644))
	settings := filepath.Join(dir, "settings.json")
	data, _, err := Edit(nil, Claude, bin, "", true)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(settings, data, 0o644))

	// The scripted model: one tool call per turn, then a final text.
	script := []map[string]any{
		{"name": "Bash", "input": map[string]any{"command": "cat /etc/passwd", "description": "read"}},
		{"name": "Bash", "input": map[string]any{"command": "printenv GIT_CONFIG_NOSYSTEM", "description": "env"}},
		{"name": "Read", "input": map[string]any{"file_path": "/etc/passwd"}},
		{"name": "Read", "input": map[string]any{"file_path": filepath.Join(work, "README.md")}},
		{"name": "Bash", "input": map[string]any{"command": "tar -cf out.tar README.md", "description": "archive"}},
	}
	stdout, stderr := runClaude(t, claude, home, work, script, "--settings", settings, "--allowedTools", "Bash,Read")

	results := claudeToolResults(t, bytes.NewReader(stdout.Bytes()))
	require.Len(t, results, len(script), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	t.Logf("results: %+v", results)

	// A refused command is blocked with vtexec's code.
	assert.True(t, results["toolu_0"].isError)
	assert.Contains(t, results["toolu_0"].text, "vtexec refused (outside_workspace)")
	assert.NotContains(t, results["toolu_0"].text, "root:")
	// An allowed one was rewritten (updatedInput) and ran through vtexec.
	assert.False(t, results["toolu_1"].isError, results["toolu_1"].text)
	assert.Regexp(t, `(?m)^1$`, results["toolu_1"].text)
	assert.Contains(t, results["toolu_1"].text, `[vtexec-cwd] cwd="`+work+`"`)
	// Read outside the workspace is blocked; inside it passes.
	assert.True(t, results["toolu_2"].isError)
	assert.Contains(t, results["toolu_2"].text, "vtexec refused (outside_workspace)")
	assert.NotContains(t, results["toolu_2"].text, "root:")
	assert.False(t, results["toolu_3"].isError, results["toolu_3"].text)
	assert.Contains(t, results["toolu_3"].text, "README-CONTENT-51")
	// An ask goes to Claude Code as an ask; with no one to answer in -p
	// mode (Bash allowed or not), nothing runs.
	assert.True(t, results["toolu_4"].isError)
	assert.Contains(t, results["toolu_4"].text, "vtexec asks a person (not_allowed)")
	assert.NoFileExists(t, filepath.Join(work, "out.tar"))
}

// Every tool Claude Code 2.1.330 declares to its model, loaded or
// deferred, is one the hook classifies.
func TestHookClaudeToolNamesAreClassified(t *testing.T) {
	claude := os.Getenv("CLAUDE_BIN")
	require.NotEmpty(t, claude, "set CLAUDE_BIN to node_modules/.bin/claude (npm install @anthropic-ai/claude-code@2.1.330)")
	_, home, work, _ := harnessDirs(t)
	m := &mockClaude{}
	runClaudeWith(t, claude, home, work, m)
	m.mu.Lock()
	defer m.mu.Unlock()
	require.Contains(t, m.tools, "Bash")
	require.Contains(t, m.tools, "WebFetch", "the deferred tools were read")
	for name := range m.tools {
		assert.NotEmpty(t, toolClass(Claude, name), "Claude Code's tool %q is not classified", name)
	}
	t.Logf("Claude Code's tools: %v", m.tools)
}

// runClaude runs Claude Code -p in work with HOME home against the
// scripted Messages API, with extra flags, and returns its output.
func runClaude(t *testing.T, claude, home, work string, script []map[string]any, flags ...string) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	return runClaudeWith(t, claude, home, work, &mockClaude{script: script}, flags...)
}

// runClaudeWith is runClaude against the scripted model m.
func runClaudeWith(t *testing.T, claude, home, work string, m *mockClaude, flags ...string) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	addr := serveLoopback(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	args := append([]string{"-p", "run the tools", "--output-format", "stream-json", "--verbose"}, flags...)
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ANTHROPIC_BASE_URL=http://" + addr,
		"ANTHROPIC_API_KEY=sk-ant-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Run(), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	return stdout, stderr
}

// toolResult is one tool result Claude Code reported.
type toolResult struct {
	text    string
	isError bool
}

// claudeToolResults reads Claude Code's stream-json output and returns
// the tool results in it, by tool_use id.
func claudeToolResults(t *testing.T, stdout io.Reader) map[string]toolResult {
	t.Helper()
	results := map[string]toolResult{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "user" {
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			ID      string          `json:"tool_use_id"`
			Content json.RawMessage `json:"content"`
			IsError bool            `json:"is_error"`
		}
		if json.Unmarshal(ev.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results[b.ID] = toolResult{contentText(b.Content), b.IsError}
			}
		}
	}
	return results
}

// mockClaude answers POST /v1/messages with SSE: the next scripted tool
// call in the main loop (a request whose tools include Bash), else text.
type mockClaude struct {
	mu     sync.Mutex
	script []map[string]any
	// tools are the tool names the requests declared: in tools, and the
	// deferred ones named in the text ToolSearch loads them from.
	tools map[string]bool
}

// deferredList is the text before the deferred tools' names, one a line.
var deferredList = regexp.MustCompile(`deferred tools are now available via ToolSearch[^\n]*\n((?:[A-Za-z_][A-Za-z0-9_]*\n)+)`)

func (m *mockClaude) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":1}`)
		return
	}
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	m.mu.Lock()
	if m.tools == nil {
		m.tools = map[string]bool{}
	}
	for _, tl := range req.Tools {
		m.tools[tl.Name] = true
	}
	var text string
	if json.Unmarshal(body, &struct {
		System *json.RawMessage `json:"system"`
	}{}) == nil {
		text = string(body)
	}
	for _, match := range deferredList.FindAllStringSubmatch(strings.ReplaceAll(text, `\n`, "\n"), -1) {
		for _, name := range strings.Fields(match[1]) {
			m.tools[name] = true
		}
	}
	m.mu.Unlock()
	main := false
	for _, tl := range req.Tools {
		main = main || tl.Name == "Bash"
	}
	turn := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			turn++
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	send("message_start", map[string]any{"message": map[string]any{"id": fmt.Sprintf("msg_%d", turn), "type": "message", "role": "assistant",
		"model": "claude-mock", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	stop := "end_turn"
	if main && turn < len(m.script) {
		call := m.script[turn]
		args, _ := json.Marshal(call["input"])
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", turn), "name": call["name"], "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
		stop = "tool_use"
	} else {
		text := "ok"
		if main {
			text = "FINAL-ANSWER: done"
		}
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	}
	send("content_block_stop", map[string]any{"index": 0})
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	send("message_stop", map[string]any{})
}
