//go:build !windows

package vtexec

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command that ran keeps its result when saving the session or writing
// the audit line fails afterwards: the failures are warnings beside it.
func TestRunKeepsResultWhenStateFailsAfter(t *testing.T) {
	_, stateDir := hermetic(t)
	dir := testDir(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	e := NewEngine(Config{})
	t.Cleanup(func() { e.Close() })
	e.afterRun = func(st *state) {
		st.log.Close() // the execution record cannot be written
		lock := filepath.Join(stateDir, "vtexec", "sessions", "s1.json.lock")
		os.Remove(lock)
		require.NoError(t, syscall.Mkfifo(lock, 0o600)) // nor the session saved
	}
	res, err := e.Run(context.Background(), Request{Command: "cd src && echo hi", Workspace: dir, Session: "s1", AuditLog: audit})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "hi\n", res.Stdout)
	assert.Equal(t, filepath.Join(dir, "src"), res.Cwd)
	codes := map[string]string{}
	for _, w := range res.Warnings {
		codes[w.Code] = w.Reason
	}
	assert.Contains(t, codes, "session_not_saved")
	assert.Contains(t, codes, "audit_failed")
	for c, r := range codes {
		assert.NotEmpty(t, r, c)
	}
}

// No request leaves a descriptor of the audit log behind: a long stream
// does not pile them up (the engine keeps one open, see auditLog).
func TestAuditLogDescriptorsDoNotPileUp(t *testing.T) {
	dir := testDir(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	e := NewEngine(Config{})
	t.Cleanup(func() { e.Close() })
	open := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(entries)
	}
	round := func() {
		_, err := e.Check(context.Background(), Request{Command: "ls", Workspace: dir, AuditLog: audit})
		require.NoError(t, err)
		_, err = e.Run(context.Background(), Request{Command: "true", Workspace: dir, AuditLog: audit})
		require.NoError(t, err)
	}
	// The Engine's box keeps its namespaces, ruleset and cgroup open,
	// some made in the background: count from the steady state.
	for range 20 {
		round()
	}
	before := open()
	for range 50 {
		round()
	}
	// A process is reaped, and its pidfd closed, once its move into the
	// box's cgroup is done, which may lag its exit by an RCU grace period.
	deadline := time.Now().Add(5 * time.Second)
	for open()-before >= 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Less(t, open()-before, 2, "descriptors left open by 100 requests")
}

// The audit line of a refusal or an ask says why, and what the agent was
// told to do instead.
func TestAuditLineCarriesReasonAndHint(t *testing.T) {
	dir := t.TempDir()
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	e := NewEngine(Config{})
	t.Cleanup(func() { e.Close() })
	defer e.Close()
	for _, cmd := range []string{"cat /etc/passwd", "rm -rf /", "echo ok"} {
		_, err := e.Check(context.Background(), Request{Command: cmd, Workspace: dir, AuditLog: audit})
		require.NoError(t, err)
	}
	data, err := os.ReadFile(audit)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 3)
	for i, line := range lines {
		var rec struct{ Decision, Code, Reason, Hint string }
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		if i == 2 {
			assert.Equal(t, "allow", string(rec.Decision), line)
			assert.Empty(t, rec.Reason, line)
			continue
		}
		assert.NotEqual(t, "allow", string(rec.Decision), line)
		assert.NotEmpty(t, rec.Reason, line)
		assert.NotEmpty(t, rec.Hint, line)
	}
}
