//go:build linux

package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without vtexec-serve beside it, vtexec serve says so and how to
// install it, after checking its flags as before.
func TestServeWithoutTheServerSaysHowToInstallIt(t *testing.T) {
	ws := cliWorkspace(t)
	bin := goBuild(t, ".", "vtexec")
	out, err := exec.Command(bin, "serve", "--workspace", ws).CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, exitUsage, exit.ExitCode())
	assert.Contains(t, string(out), "server_missing")
	assert.Contains(t, string(out), "go install github.com/vtexec/vtexec/cmd/...@")
	out, err = exec.Command(bin, "serve", "--max-jobs", "0", "--workspace", ws).CombinedOutput()
	require.ErrorAs(t, err, &exit)
	assert.Contains(t, string(out), "--max-jobs must be at least 1")
}
