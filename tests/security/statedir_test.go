//go:build linux

package security

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/internal/testns"
)

// A state directory that is full or read-only is reported as what it is
// — a state error naming the directory — and a command that does not need
// the lost state (a new session's file) still runs, with a warning.
func TestStateDirFullOrReadOnly(t *testing.T) {
	if !testns.Root(t) { // mounting a tmpfs needs root
		return
	}
	for _, mode := range []string{"full", "read-only"} {
		t.Run(mode, func(t *testing.T) {
			ws := fixture(t)
			state := t.TempDir()
			require.NoError(t, syscall.Mount("tmpfs", state, "tmpfs", 0, "size=16k"))
			t.Cleanup(func() { syscall.Unmount(state, syscall.MNT_DETACH) })
			switch mode {
			case "full":
				f, err := os.Create(filepath.Join(state, "filler"))
				require.NoError(t, err)
				for {
					if _, err := f.Write(make([]byte, 4096)); err != nil {
						break
					}
				}
				f.Close()
			case "read-only":
				require.NoError(t, syscall.Mount("", state, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, "size=16k"))
			}
			t.Setenv("XDG_STATE_HOME", state)
			res, err := testEngine.Run(context.Background(), vtexec.Request{Command: "cat file.txt", Workspace: ws, Session: "new-session-1", AuditLog: "off"})
			require.NoError(t, err, "a command that needs no saved state runs")
			assert.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
			assert.Equal(t, "one\ntwo\n", res.Stdout)
			codes := map[string]string{}
			for _, w := range res.Warnings {
				codes[w.Code] = w.Reason
			}
			require.Contains(t, codes, "state_unwritable", "%v", res.Warnings)
			assert.Contains(t, codes["state_unwritable"], state)
		})
	}
}

// A key file left empty by a disk that was full when the first approval
// id was made does not stop approval ids for good: once there is room,
// the next id is issued.
func TestApprovalKeyRecoversAfterAFullDisk(t *testing.T) {
	ws := fixture(t)
	state := os.Getenv("XDG_STATE_HOME")
	require.NoError(t, os.MkdirAll(filepath.Join(state, "vtexec"), 0o700))
	// What a write on a full disk leaves: the file, and nothing in it.
	key := filepath.Join(state, "vtexec", "approval.key")
	require.NoError(t, os.WriteFile(key, nil, 0o600))
	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(key, old, old))
	d, err := testEngine.Check(context.Background(), vtexec.Request{Command: "rm file.txt", Workspace: ws, AuditLog: "off", WantApprovalID: true})
	require.NoError(t, err)
	require.Equal(t, "ask", string(d.Decision))
	assert.NotEmpty(t, d.ApprovalID, "an approval id is issued again")
	data, err := os.ReadFile(key)
	require.NoError(t, err)
	assert.Len(t, data, 32)
}
