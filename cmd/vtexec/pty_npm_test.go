//go:build linux && hostprograms

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On the terminal too, an approval covers the script shown: "session"
// for npm run test leaves npm run build asking, lets npm run test
// --silent run, and asks again once the script is edited.
func TestPromptSessionCoversTheScriptShown(t *testing.T) {
	ws := cliWorkspace(t)
	pkg := func(test string) {
		require.NoError(t, os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"scripts": {"test": "`+test+`", "build": "true"}}`), 0o644))
	}
	pkg("true")
	shown, _ := underPTY(t, "s", "run", "--workspace", ws, "--session", "S1", "--", "npm run test")
	assert.Contains(t, shown, "this and other runs of npm run test")
	assert.Contains(t, shown, "only while the script it runs")
	check := func(cmd string) int {
		code, _, _ := cli(t, "", "check", "--workspace", ws, "--session", "S1", "--", cmd)
		return code
	}
	assert.Equal(t, exitAllow, check("npm run test --silent"))
	assert.Equal(t, exitAsk, check("npm run build"))
	pkg("true; true")
	assert.Equal(t, exitAsk, check("npm run test"), "the script was edited")
}
