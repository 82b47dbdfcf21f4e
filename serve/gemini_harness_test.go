//go:build harness

package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeminiCLICallsVtexecServe drives the real Gemini CLI
// (@google/gemini-cli@0.61.0, offline, its model scripted with
// --fake-responses) against vtexec serve, registered as the MCP server
// "vtexec": an allowed command, a refused one, cd holding across calls,
// and a command that needs approval. GEMINI_JS is the path of the CLI's
// bundle/gemini.js; .ci/run installs it. Without it the test fails: the
// tag asks for this run. It passes with no network (unshare -n).
func TestGeminiCLICallsVtexecServe(t *testing.T) {
	geminiJS := os.Getenv("GEMINI_JS")
	if geminiJS == "" {
		t.Fatal("GEMINI_JS is not set: point it at node_modules/@google/gemini-cli/bundle/gemini.js (npm install @google/gemini-cli@0.61.0), as .ci/run does")
	}
	dir := t.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(work, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "hello.txt"), []byte("GEMINI-MARKER-4d7b\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(work, "sub", "inner.txt"), []byte("INNER-MARKER-08e2\n"), 0o644))
	bin := buildVtexec(t, dir)

	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"model":    map[string]any{"name": "gemini-2.5-flash"},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"mcpServers": map[string]any{"vtexec": map[string]any{
			"command": bin,
			"args":    []string{"serve", "--workspace", work},
			"env": map[string]string{
				"XDG_STATE_HOME":  filepath.Join(dir, "state"),
				"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
			},
			"trust":   true,
			"timeout": 30000,
		}},
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), b, 0o644))

	// The scripted model: one line per turn, one tool call each.
	turn := func(parts string) string {
		return `{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[` + parts + `]},"finishReason":"STOP"}]}]}`
	}
	shell := func(command string) string {
		args, _ := json.Marshal(map[string]string{"command": command})
		return turn(`{"functionCall":{"name":"mcp_vtexec_shell","args":` + string(args) + `}}`)
	}
	fake := strings.Join([]string{
		shell("cat hello.txt"),
		shell("cat /etc/passwd"),
		shell("cd sub"),
		shell("cat inner.txt"),
		shell("rm ../hello.txt"),
		turn(`{"text":"FINAL-ANSWER: done"}`),
	}, "\n") + "\n"
	fakePath := filepath.Join(dir, "fake.jsonl")
	require.NoError(t, os.WriteFile(fakePath, []byte(fake), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", geminiJS, "--prompt", "run the tools", "--skip-trust",
		"--output-format", "stream-json", "--fake-responses", fakePath)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_API_KEY=dummy-not-used",
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}

	// stream-json: tool_use and tool_result events joined on tool_id, in order.
	type call struct {
		name, command, status, output string
		errType, errMessage           string // what the model gets for an isError result
	}
	var calls []*call
	byID := map[string]*call{}
	final := ""
	log := stdout.String()
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Type       string            `json:"type"`
			ToolID     string            `json:"tool_id"`
			ToolName   string            `json:"tool_name"`
			Parameters map[string]string `json:"parameters"`
			Status     string            `json:"status"`
			Output     string            `json:"output"`
			Role       string            `json:"role"`
			Content    string            `json:"content"`
			Error      struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "tool_use":
			c := &call{name: ev.ToolName, command: ev.Parameters["command"]}
			calls = append(calls, c)
			byID[ev.ToolID] = c
		case "tool_result":
			if c := byID[ev.ToolID]; c != nil {
				c.status, c.output = ev.Status, ev.Output
				c.errType, c.errMessage = ev.Error.Type, ev.Error.Message
			}
		case "message":
			if ev.Role == "assistant" {
				final += ev.Content
			}
		case "result":
			require.Equal(t, "success", ev.Status, "result event: %s", sc.Text())
		}
	}
	require.Len(t, calls, 5, "stdout:\n%s\nstderr:\n%s", log, stderr.String())
	for _, c := range calls {
		assert.Equal(t, "mcp_vtexec_shell", c.name)
	}

	ok := calls[0]
	assert.Equal(t, "success", ok.status, log)
	assert.Contains(t, ok.output, "GEMINI-MARKER-4d7b", log)
	assert.Contains(t, ok.output, "exit code: 0", log)

	// Gemini CLI shows people only "reported an error" for an isError
	// result and gives the model the whole response, our text included.
	refused := calls[1]
	assert.Equal(t, "error", refused.status, log)
	assert.Equal(t, "mcp_tool_error", refused.errType, log)
	assert.Contains(t, refused.errMessage, "refused: deny outside_workspace: cat: ", log)
	assert.Contains(t, refused.errMessage, "hint: use a path inside the workspace", log)

	assert.Contains(t, calls[2].output, "cwd: "+filepath.Join(work, "sub"), log)
	assert.Contains(t, calls[3].output, "INNER-MARKER-08e2", "cd held for the next call: "+log)
	// Gemini CLI 0.61.0 declares no elicitation: an ask is refused at
	// once, with the hint, and nothing is removed.
	ask := calls[4]
	assert.Equal(t, "error", ask.status, log)
	assert.Contains(t, ask.errMessage, "refused: deny needs_approval: ", log)
	assert.Contains(t, ask.errMessage, "hint: run it in a terminal to be asked", log)
	assert.FileExists(t, filepath.Join(work, "hello.txt"))
	assert.Equal(t, "FINAL-ANSWER: done", final)
}
