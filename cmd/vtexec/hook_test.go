package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHookSubcommand(t *testing.T) {
	ws := cliWorkspace(t)
	ev, _ := json.Marshal(map[string]any{"session_id": "s-1", "cwd": ws, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "cat /etc/passwd"}})
	code, out, _ := cli(t, string(ev), "hook", "--harness", "claude", "--workspace", ws)
	assert.Equal(t, 0, code)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",
		"permissionDecisionReason":"vtexec refused (outside_workspace): cat: \"/etc/passwd\": path is outside the workspace\nHint: use a path inside the workspace (relative to the current directory, under ./)"}}`, out)
}
