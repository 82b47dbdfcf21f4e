package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/validators"
)

// What describe tells a model is what the checks do: the programs it
// says run without asking are the allowlist, and every program it says
// is refused is refused by check, with the reason it gives.
func TestDescribeListsMatchTheChecks(t *testing.T) {
	ws := cliWorkspace(t)
	text := describe()
	_, rest, ok := strings.Cut(text, "Runs without asking, when its flags and paths check out:\n  ")
	require.True(t, ok)
	free, rest, _ := strings.Cut(rest, "\n")
	assert.Equal(t, validators.Names(), strings.Fields(free))
	_, refused, ok := strings.Cut(rest, "Refused whatever is approved:\n")
	require.True(t, ok)
	refused, _, _ = strings.Cut(refused, "\n\n")
	n := 0
	for _, line := range strings.Split(refused, "\n") {
		programs, reason, ok := strings.Cut(strings.TrimSpace(line), ": ")
		require.True(t, ok, line)
		for _, p := range strings.Fields(programs) {
			_, out, _ := cli(t, "", "check", "--workspace", ws, "--json", "--", p+" x")
			var d struct{ Decision, Code, Reason string }
			require.NoError(t, json.Unmarshal([]byte(out), &d), out)
			assert.Equal(t, "deny", d.Decision, p)
			assert.Equal(t, "forbidden_program", d.Code, "%s: %s", p, d.Reason)
			assert.Contains(t, d.Reason, reason, p)
			n++
		}
	}
	assert.Greater(t, n, 50, "the refused list was read")
	for _, name := range validators.Names() {
		assert.Contains(t, describeProgram(name), "runs without asking", name)
	}
	assert.Contains(t, describeProgram("sudo"), "refused whatever is approved")
	assert.Contains(t, describeProgram("npm"), "--script-shell")
	code, out, _ := cli(t, "", "describe", "sed")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "refused: ")
}
