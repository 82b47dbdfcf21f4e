//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A 200 MiB output is truncated and vtexec's own peak RSS stays small.
func TestRunBigOutputBoundedMemory(t *testing.T) {
	ws := cliWorkspace(t)
	big := filepath.Join(ws, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(200<<20))
	require.NoError(t, f.Close())

	cmd := exec.Command(os.Args[0], "run", "--workspace", ws, "--json", "--", "cat big")
	cmd.Env = append(os.Environ(), "VTEXEC_TEST_AS_CLI=1")
	out, err := cmd.Output()
	require.NoError(t, err)
	var res struct {
		Stdout    string `json:"stdout"`
		Truncated bool   `json:"truncated"`
		ExitCode  int    `json:"exit_code"`
	}
	require.NoError(t, json.Unmarshal(out, &res))
	assert.Equal(t, 0, res.ExitCode)
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Stdout), 128<<10)

	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	peak := ru.Maxrss * 1024 // kilobytes on Linux
	t.Logf("peak RSS of vtexec run on 200 MiB of output: %.1f MiB", float64(peak)/(1<<20))
	assert.Less(t, peak, int64(64<<20))
}
