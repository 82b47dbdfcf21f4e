//go:build harness

package hook

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

// TestHookInRealHarness runs Gemini CLI 0.61.0 offline, its model scripted
// (--fake-responses), with the built vtexec as its BeforeTool hook. It
// needs GEMINI_JS (…/@google/gemini-cli/bundle/gemini.js) and fails
// without it.
func TestHookInRealHarness(t *testing.T) {
	geminiJS := os.Getenv("GEMINI_JS")
	require.NotEmpty(t, geminiJS, "set GEMINI_JS to node_modules/@google/gemini-cli/bundle/gemini.js (npm install @google/gemini-cli@0.61.0)")
	dir, home, work, bin := harnessDirs(t)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "README.md"), []byte("README-CONTENT-51\n"), 0o644))
	// Gemini CLI lets its tools read its own temp directory, outside
	// the project; vtexec does not.
	geminiTmp := filepath.Join(home, ".gemini", "tmp", "work")
	require.NoError(t, os.MkdirAll(geminiTmp, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(geminiTmp, "secret.txt"), []byte("SECRET-77\n"), 0o644))

	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"model":    map[string]any{"name": "gemini-2.5-flash"},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	}
	// The hook goes in as vtexec hook install puts it.
	b, _ := json.Marshal(settings)
	b, _, err := Edit(b, Gemini, bin, "", true)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), b, 0o644))

	// One call per model turn, so the hooks fire in this order.
	call := func(name string, args map[string]any) string {
		part := map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
		return turn(part)
	}
	fake := strings.Join([]string{
		call("run_shell_command", map[string]any{"command": "cat /etc/passwd"}),
		call("run_shell_command", map[string]any{"command": "printenv GIT_CONFIG_NOSYSTEM"}),
		call("read_file", map[string]any{"file_path": filepath.Join(geminiTmp, "secret.txt")}),
		call("write_file", map[string]any{"file_path": ".vtexec/policy.toml", "content": "[[rule]]\n"}),
		call("write_file", map[string]any{"file_path": ".gemini/settings.json", "content": "{\"hooks\":{}}\n"}),
		call("read_file", map[string]any{"file_path": "README.md"}),
		turn(map[string]any{"text": "FINAL-ANSWER: done"}),
	}, "\n") + "\n"
	fakePath := filepath.Join(dir, "fake.jsonl")
	require.NoError(t, os.WriteFile(fakePath, []byte(fake), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", geminiJS, "--prompt", "run the tools", "--skip-trust",
		"--approval-mode", "yolo", "--output-format", "stream-json", "--fake-responses", fakePath)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_API_KEY=dummy-not-used",
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())

	// The tool results, in the order the tools were called.
	type result struct{ tool, status, output string }
	var results []result
	byID := map[string]int{}
	final := ""
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Type, ToolID, ToolName, Status, Output, Role, Content string
		}
		var raw map[string]any
		if json.Unmarshal(sc.Bytes(), &raw) != nil {
			continue
		}
		s := func(k string) string { v, _ := raw[k].(string); return v }
		ev.Type, ev.ToolID, ev.ToolName, ev.Status, ev.Output, ev.Role, ev.Content = s("type"), s("tool_id"), s("tool_name"), s("status"), s("output"), s("role"), s("content")
		switch ev.Type {
		case "tool_use":
			byID[ev.ToolID] = len(results)
			results = append(results, result{tool: ev.ToolName})
		case "tool_result":
			i, ok := byID[ev.ToolID]
			require.True(t, ok, "a result without its call: %s", sc.Text())
			results[i].status, results[i].output = ev.Status, ev.Output
		case "message":
			if ev.Role == "assistant" {
				final += ev.Content
			}
		case "result":
			require.Equal(t, "success", s("status"), sc.Text())
		}
	}
	require.Len(t, results, 6, stdout.String())

	// (a) a refused command is blocked with vtexec's code.
	assert.Equal(t, "error", results[0].status)
	assert.Contains(t, results[0].output, "vtexec refused (outside_workspace)")
	assert.NotContains(t, results[0].output, "root:")

	// (b) an allowed command ran through vtexec: only vtexec's runner
	// sets GIT_CONFIG_NOSYSTEM, and only vtexec run --session prints the
	// cwd marker line.
	assert.Equal(t, "success", results[1].status, results[1].output)
	assert.Regexp(t, `(?m)^1$`, results[1].output)
	assert.Contains(t, results[1].output, `[vtexec-cwd] cwd="`+work+`"`)

	// (c) reading outside the workspace is blocked by vtexec.
	assert.Equal(t, "error", results[2].status)
	assert.Contains(t, results[2].output, "vtexec refused (outside_workspace)")
	assert.NotContains(t, results[2].output, "SECRET-77")

	// Writing vtexec's own policy is refused; reading a workspace file
	// (last) passes.
	assert.Equal(t, "error", results[3].status)
	assert.Contains(t, results[3].output, "vtexec refused (protected_path)")
	assert.NoFileExists(t, filepath.Join(work, ".vtexec", "policy.toml"))
	// So is writing the project's Gemini settings, where hooks live.
	assert.Equal(t, "error", results[4].status)
	assert.Contains(t, results[4].output, "vtexec refused (protected_path)")
	assert.NoFileExists(t, filepath.Join(work, ".gemini", "settings.json"))
	assert.Equal(t, "success", results[5].status, results[5].output)

	assert.Equal(t, "FINAL-ANSWER: done", final)
}

// turn is one scripted model turn with one part.
func turn(part map[string]any) string {
	b, _ := json.Marshal(map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP"}}}}})
	return string(b)
}
