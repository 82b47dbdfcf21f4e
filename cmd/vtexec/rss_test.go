//go:build linux

package main

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goBuild builds the package in dir into a fresh binary, as users get it:
// without the race detector even when the tests run with it.
func goBuild(t testing.TB, dir, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	build := exec.Command("go", "build", "-o", bin, dir)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	msg, err := build.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	return bin
}

// bigOutputMiB sizes the output of TestRunBigOutputBoundedMemory; measure
// 1 GiB with
//
//	go test -run BigOutput -v ./cmd/vtexec -args -bigoutput-mib 1024
var bigOutputMiB = flag.Int64("bigoutput-mib", 200, "MiB of output for TestRunBigOutputBoundedMemory")

// A big output (200 MiB by default) is truncated and vtexec's own peak
// RSS stays small.
func TestRunBigOutputBoundedMemory(t *testing.T) {
	ws := cliWorkspace(t)
	big := filepath.Join(ws, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(*bigOutputMiB<<20))
	require.NoError(t, f.Close())

	vtexec := goBuild(t, ".", "vtexec")
	maxrss := goBuild(t, "./testdata/maxrss", "maxrss")
	cmd := exec.Command(maxrss, vtexec, "run", "--workspace", ws, "--json", "--", "cat big")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var res struct {
		Stdout    string `json:"stdout"`
		Truncated bool   `json:"truncated"`
		ExitCode  int    `json:"exit_code"`
	}
	require.NoError(t, json.Unmarshal(out, &res))
	assert.Equal(t, 0, res.ExitCode)
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Stdout), 128<<10)

	lines := strings.Fields(stderr.String())
	require.NotEmpty(t, lines)
	peak, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	require.NoError(t, err, stderr.String())
	t.Logf("peak RSS of vtexec run on %d MiB of output: %.1f MiB", *bigOutputMiB, float64(peak)/(1<<20))
	assert.Less(t, peak, int64(64<<20))
}
