package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With --json, vtexec's own failures are JSON on stdout too, so the body
// tells them from the command's exit status.
func TestJSONModeAnswersErrorsInJSON(t *testing.T) {
	ws := cliWorkspace(t)
	for _, c := range []struct {
		args []string
		code string
	}{
		{[]string{"run", "--json", "--workspace", filepath.Join(ws, "nope"), "--", "ls"}, "bad_request"},
		{[]string{"run", "--json", "--workspace", ws, "--bogus", "--", "ls"}, "usage"},
		{[]string{"run", "--json", "--workspace", ws}, "usage"},
		{[]string{"run", "--workspace", ws, "--max-output", "lots", "--json", "--", "ls"}, "usage"},
		{[]string{"check", "--json", "--workspace", ws, "--cwd", "..", "--", "ls"}, "bad_request"},
		{[]string{"check", "--json=true", "--workspace", ws}, "usage"},
	} {
		code, out, stderr := cli(t, "", c.args...)
		assert.Equal(t, exitUsage, code, "%q", c.args)
		var v struct {
			Error struct{ Code, Reason, Hint string } `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &v), "%q: stdout %q stderr %q", c.args, out, stderr)
		assert.Equal(t, c.code, v.Error.Code, "%q", c.args)
		assert.NotEmpty(t, v.Error.Reason, "%q", c.args)
		assert.NotEmpty(t, v.Error.Hint, "%q", c.args)
	}
	// Without --json, errors stay text on stderr.
	code, out, stderr := cli(t, "", "run", "--workspace", filepath.Join(ws, "nope"), "--", "ls")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "vtexec: bad_request")
}
