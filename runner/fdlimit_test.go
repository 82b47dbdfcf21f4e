//go:build linux

package runner

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
)

// When a later step cannot be started (no descriptors left for its
// pipes), the output of the steps that ran is kept and the failure is
// reported beside it. The limit is lowered in a child process.
func TestLaterStepFailureKeepsEarlierOutput(t *testing.T) {
	if os.Getenv("VTEXEC_RUNNER_FD_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLaterStepFailureKeepsEarlierOutput$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "VTEXEC_RUNNER_FD_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return
	}
	ws := newWS(t)
	dir := ws.Root()
	var pipeline []plan.Cmd
	for range 12 {
		pipeline = append(pipeline, command(t, dir, "cat"))
	}
	p := planOf(step(plan.Seq, command(t, dir, "echo", "ran")), step(plan.Seq, pipeline...))
	// Start Go's poller now: started under the lowered limit, it cannot
	// get its descriptors and the runtime aborts.
	r, w, err := os.Pipe()
	require.NoError(t, err)
	r.Close()
	w.Close()
	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old))
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for lim := uint64(len(entries)); lim < uint64(len(entries))+100; lim++ {
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: lim, Max: old.Max}))
		res, err := Run(context.Background(), p, ws, Options{})
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old))
		if err != nil || res.Failed == nil || res.Stdout != "ran\n" {
			continue // the first step could not start either, or the second could
		}
		t.Logf("at %d descriptors: %v", lim, res.Failed)
		assert.Contains(t, res.Stderr, "vtexec: ")
		assert.Equal(t, failedStatus, res.ExitCode)
		return
	}
	t.Fatal("no descriptor limit made the second step fail after the first ran")
}
