//go:build harnessclaude

package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClaudeCodeCallsVtexecServe runs Claude Code 2.1.330 (-p) with vtexec
// serve registered as its MCP server "vtexec", against the scripted
// Messages API: an allowed command's output, a refusal's code and hint,
// and a background command read and stopped all reach the model as tool
// results. It needs CLAUDE_BIN and fails without it.
func TestClaudeCodeCallsVtexecServe(t *testing.T) {
	claude := os.Getenv("CLAUDE_BIN")
	require.NotEmpty(t, claude, "set CLAUDE_BIN to node_modules/.bin/claude (npm install @anthropic-ai/claude-code@2.1.330)")
	dir, home, work, bin := harnessDirs(t)
	require.NoError(t, os.WriteFile(filepath.Join(work, "notes.txt"), []byte("SERVE-NOTES-8e2\n"), 0o644))
	mcpConfig := filepath.Join(dir, "mcp.json")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"vtexec": map[string]any{
		"command": bin, "args": []string{"serve", "--workspace", work, "--audit", "off"}}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(mcpConfig, cfg, 0o644))

	script := []map[string]any{
		{"name": "mcp__vtexec__shell", "input": map[string]any{"command": "cat notes.txt"}},
		{"name": "mcp__vtexec__shell", "input": map[string]any{"command": "cat /etc/passwd"}},
		{"name": "mcp__vtexec__shell", "input": map[string]any{"command": "tail -f notes.txt", "background": true}},
		{"name": "mcp__vtexec__shell_read", "input": map[string]any{"id": "j1", "wait_ms": 3000}},
		{"name": "mcp__vtexec__shell_kill", "input": map[string]any{"id": "j1"}},
	}
	stdout, stderr := runClaude(t, claude, home, work, script, "--mcp-config", mcpConfig, "--strict-mcp-config",
		"--allowedTools", "mcp__vtexec__shell,mcp__vtexec__shell_read,mcp__vtexec__shell_kill")

	results := claudeToolResults(t, bytes.NewReader(stdout.Bytes()))
	require.Len(t, results, len(script), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	t.Logf("results: %+v", results)

	assert.False(t, results["toolu_0"].isError, results["toolu_0"].text)
	assert.Contains(t, results["toolu_0"].text, "SERVE-NOTES-8e2")
	assert.Contains(t, results["toolu_0"].text, `"exit_code":0`, "Claude Code gives the model the structured content")

	assert.True(t, results["toolu_1"].isError)
	assert.Contains(t, results["toolu_1"].text, "outside_workspace")
	assert.Contains(t, results["toolu_1"].text, "hint: ")
	assert.NotContains(t, results["toolu_1"].text, "root:")

	assert.Contains(t, results["toolu_2"].text, `"job":"j1"`)
	assert.Contains(t, results["toolu_3"].text, `"running":true`)
	assert.Contains(t, results["toolu_3"].text, `"output":"SERVE-NOTES-8e2\n"`)
	assert.Contains(t, results["toolu_4"].text, `"killed":true`)
	assert.Contains(t, results["toolu_4"].text, `"running":false`)
}
