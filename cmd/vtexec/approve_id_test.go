package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A harness's approval round trip through the CLI: check --json gives an
// approval_id, run --approve once --approval-id runs exactly that once.
func TestHarnessApprovalRoundTrip(t *testing.T) {
	ws := cliWorkspace(t)
	code, out, _ := cli(t, "", "check", "--json", "--workspace", ws, "--", "rm README.md")
	require.Equal(t, exitAsk, code, out)
	var d struct {
		ApprovalID string `json:"approval_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	require.NotEmpty(t, d.ApprovalID)

	code, _, stderr := cli(t, "", "run", "--workspace", ws, "--approve", "once", "--approval-id", d.ApprovalID, "--", "rm src/a.txt")
	assert.Equal(t, 126, code, "another command: %s", stderr)
	code, _, stderr = cli(t, "", "run", "--workspace", ws, "--approve", "once", "--approval-id", d.ApprovalID, "--", "rm README.md")
	assert.Equal(t, 0, code, stderr)
	_, err := os.Stat(filepath.Join(ws, "README.md"))
	assert.True(t, os.IsNotExist(err))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "README.md"), nil, 0o644))
	code, _, _ = cli(t, "", "run", "--workspace", ws, "--approve", "once", "--approval-id", d.ApprovalID, "--", "rm README.md")
	assert.Equal(t, 126, code, "spent")

	code, _, _ = cli(t, "", "run", "--workspace", ws, "--approve", "once", "--", "rm README.md")
	assert.Equal(t, exitUsage, code)
	code, _, _ = cli(t, "", "run", "--workspace", ws, "--approve", "sometimes", "--approval-id", "x", "--", "rm README.md")
	assert.Equal(t, exitUsage, code)
}
