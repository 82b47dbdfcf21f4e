package vtexec

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/audit"
)

// An engine keeps its audit log open between requests, and every record
// still goes to the file the path leads to when it is written: after the
// file is moved away (rotated), removed, or the path made a link to
// another file, the next record is there, not in the file kept open.
func TestAuditLogKeptOpenFollowsItsPath(t *testing.T) {
	dir := testDir(t)
	logs := t.TempDir()
	path := filepath.Join(logs, "audit.jsonl")
	e := NewEngine(Config{})
	defer e.Close()
	check := func(cmd string) {
		t.Helper()
		_, err := e.Check(context.Background(), Request{Command: cmd, Workspace: dir, AuditLog: path})
		require.NoError(t, err)
	}
	holds := func(file, cmd string) bool {
		t.Helper()
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		return bytes.Contains(b, []byte(`"command":"`+cmd+`"`))
	}

	check("ls first")
	check("ls second")
	assert.True(t, holds(path, "ls second"))
	first := e.log
	require.NotNil(t, first)
	check("ls third")
	assert.Same(t, first, e.log, "a log whose file is unchanged is not opened again")

	require.NoError(t, os.Rename(path, path+".1"))
	check("ls after rotation")
	assert.True(t, holds(path, "ls after rotation"))
	assert.False(t, holds(path+".1", "ls after rotation"))

	require.NoError(t, os.Remove(path))
	check("ls after removal")
	assert.True(t, holds(path, "ls after removal"))

	other := filepath.Join(logs, "elsewhere.jsonl")
	require.NoError(t, os.WriteFile(other, nil, 0o600))
	require.NoError(t, os.Rename(path, path+".2"))
	require.NoError(t, os.Symlink(other, path))
	check("ls through a link")
	assert.True(t, holds(other, "ls through a link"))
	assert.False(t, holds(path+".2", "ls through a link"))
}

// A log no longer kept is closed once its last request lets go of it;
// the one kept is closed with the engine.
func TestAuditLogsAreClosedWhenLetGo(t *testing.T) {
	dir := testDir(t)
	logs := t.TempDir()
	e := NewEngine(Config{})
	a, err := e.auditLog(filepath.Join(logs, "a.jsonl"))
	require.NoError(t, err)
	b, err := e.auditLog(filepath.Join(logs, "b.jsonl")) // a is still in use
	require.NoError(t, err)
	assert.True(t, a.WritesTo(a.path), "closed while a request still writes to it")
	e.releaseLog(a)
	assert.False(t, a.WritesTo(a.path), "left open after its last request")
	e.releaseLog(b)
	assert.True(t, b.WritesTo(b.path), "the kept log closed between requests")
	_, err = e.Check(context.Background(), Request{Command: "ls", Workspace: dir, AuditLog: b.path})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	assert.False(t, b.WritesTo(b.path), "left open after the engine closed")
}

// A record Check holds (HoldAudit) is written by WriteAudit, not before:
// the records of several decisions in their order, each once however
// many copies of its decision are given, and the log it goes to stays
// open until then, even when the log is rotated in between.
func TestHeldAuditRecordsAreWrittenByWriteAudit(t *testing.T) {
	dir := testDir(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	e := NewEngine(Config{})
	defer e.Close()
	commands := func(file string) []string {
		t.Helper()
		b, err := os.ReadFile(file)
		if os.IsNotExist(err) {
			return nil
		}
		require.NoError(t, err)
		var got []string
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var r audit.Record
			require.NoError(t, json.Unmarshal(line, &r))
			got = append(got, r.Command)
		}
		return got
	}
	var ds []Decision
	for _, cmd := range []string{"ls one", "cat two", "rm -rf /"} {
		d, err := e.Check(context.Background(), Request{Command: cmd, Workspace: dir, AuditLog: path, HoldAudit: true})
		require.NoError(t, err)
		ds = append(ds, d)
	}
	assert.Empty(t, commands(path), "written before WriteAudit")
	require.NoError(t, os.Rename(path, path+".1"))
	late, err := e.Check(context.Background(), Request{Command: "ls later", Workspace: dir, AuditLog: path, HoldAudit: true})
	require.NoError(t, err)

	copies := append([]Decision{}, ds...)
	e.WriteAudit(append([]Decision{ds[2], ds[0]}, ds[1], late))
	e.WriteAudit(copies)
	assert.Equal(t, []string{"rm -rf /", "ls one", "cat two"}, commands(path+".1"), "where they were decided, in the order given, once")
	assert.Equal(t, []string{"ls later"}, commands(path))
	for _, d := range append(ds, late) {
		assert.Empty(t, d.Warnings)
	}
}
