package vtexec

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/confine"
)

// A long-lived Engine notes when each request ends, not only when it
// began: the helper started ahead for the next program waits for a quiet
// moment after both, so a shell call longer than that moment does not
// let the helper's start take a CPU from the call that follows it.
func TestServerNotesWhenARequestEnds(t *testing.T) {
	if runtime.GOOS != "linux" {
		// No helper is started ahead here: nothing is noted.
		confine.NoteRequest()
		assert.Equal(t, time.Time{}, confine.LastRequest())
		return
	}
	hermetic(t)
	dir := testDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644))
	e := NewEngine(Config{KeepReady: true})
	t.Cleanup(func() { e.Close() })
	run := func(cmd string) (begun, ended time.Time) {
		begun = time.Now()
		res, err := e.Run(context.Background(), Request{Command: cmd, Workspace: dir, AuditLog: "off"})
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode, "%+v", res)
		return begun, time.Now()
	}
	run("cat f.txt") // warm: the box, the policy
	// A request of 50 ms: noted only at its beginning, the last note
	// would be 50 ms before its end.
	begun, ended := run("sleep 0.05")
	last := confine.LastRequest()
	assert.True(t, last.After(begun.Add(50*time.Millisecond)), "the end was noted: last note %v after the beginning", last.Sub(begun))
	assert.False(t, last.After(ended))
	// A check notes its end too.
	before := time.Now()
	_, err := e.Check(context.Background(), Request{Command: "cat f.txt", Workspace: dir, AuditLog: "off"})
	require.NoError(t, err)
	assert.True(t, confine.LastRequest().After(before))
}
