//go:build linux

package audit

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/testns"
)

// A short write leaves no partial line: the file is cut back to where
// the record began, the error says so, and the next record is whole.
func TestShortWriteLeavesNoPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	require.NoError(t, err)
	defer l.Close()
	require.NoError(t, l.Write(Record{Kind: KindDecision, Command: "first", Decision: "allow"}))

	writeFD = func(fd int, b []byte) (int, error) { return syscall.Write(fd, b[:len(b)/2]) }
	err = l.Write(Record{Kind: KindDecision, Command: "lost", Decision: "allow"})
	writeFD = syscall.Write
	assert.ErrorIs(t, err, io.ErrShortWrite)

	writeFD = func(fd int, b []byte) (int, error) { return 0, syscall.ENOSPC }
	err = l.Write(Record{Kind: KindDecision, Command: "lost too", Decision: "allow"})
	writeFD = syscall.Write
	assert.ErrorIs(t, err, syscall.ENOSPC)

	require.NoError(t, l.Write(Record{Kind: KindDecision, Command: "third", Decision: "allow"}))
	lines := readLines(t, path)
	require.Len(t, lines, 2)
	for i, want := range []string{"first", "third"} {
		var r Record
		require.NoError(t, json.Unmarshal(lines[i], &r), "%s", lines[i])
		assert.Equal(t, want, r.Command)
	}
}

// A file that does not end in a newline (a record torn by a crash) does
// not swallow the next record: it starts on a fresh line.
func TestWriteStartsOnFreshLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"torn":`), 0o600))
	l, err := Open(path)
	require.NoError(t, err)
	defer l.Close()
	require.NoError(t, l.Write(Record{Kind: KindDecision, Command: "next", Decision: "allow"}))
	lines := readLines(t, path)
	require.Len(t, lines, 2)
	var r Record
	require.NoError(t, json.Unmarshal(lines[1], &r))
	assert.Equal(t, "next", r.Command)
}

// On a real full file system every write either lands whole or is
// reported, and the file stays valid JSON lines.
func TestFullFileSystem(t *testing.T) {
	if !testns.Root(t) { // mounting a tmpfs needs root
		return
	}
	dir := t.TempDir()
	require.NoError(t, syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16k"))
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	path := filepath.Join(dir, "audit.jsonl")
	l, err := Open(path)
	require.NoError(t, err)
	defer l.Close()
	var written, failed int
	for i := 0; failed < 3 && i < 1000; i++ {
		err := l.Write(Record{Kind: KindDecision, Command: strings.Repeat("x", 700), Decision: "allow"})
		switch {
		case err == nil:
			written++
		case errors.Is(err, syscall.ENOSPC) || errors.Is(err, io.ErrShortWrite):
			failed++
		default:
			t.Fatal(err)
		}
	}
	require.Equal(t, 3, failed, "the file system fills up")
	lines := readLines(t, path)
	assert.Len(t, lines, written)
	for _, line := range lines {
		var r Record
		require.NoError(t, json.Unmarshal(line, &r))
	}
	t.Logf("%d records written, then the file system was full", written)
}

// WriteLines records many lines with one write(2), in their order, and
// a short write cuts every one of them off again: they land together or
// not at all.
func TestWriteLinesIsOneWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	require.NoError(t, err)
	defer l.Close()
	require.NoError(t, l.Write(Record{Kind: KindDecision, Command: "first", Decision: "allow"}))
	var batch []Line
	for _, c := range []string{"a", "b", "c"} {
		line, err := Encode(Record{Kind: KindDecision, Command: c, Decision: "allow"})
		require.NoError(t, err)
		batch = append(batch, line)
	}

	calls := 0
	writeFD = func(fd int, b []byte) (int, error) { calls++; return syscall.Write(fd, b) }
	require.NoError(t, l.WriteLines(batch...))
	assert.Equal(t, 1, calls, "one write(2) for the batch")

	writeFD = func(fd int, b []byte) (int, error) { return syscall.Write(fd, b[:len(b)-10]) }
	err = l.WriteLines(batch...)
	writeFD = syscall.Write
	assert.ErrorIs(t, err, io.ErrShortWrite)
	require.NoError(t, l.WriteLines())

	var got []string
	for _, line := range readLines(t, path) {
		var r Record
		require.NoError(t, json.Unmarshal(line, &r), "%s", line)
		got = append(got, r.Command)
	}
	assert.Equal(t, []string{"first", "a", "b", "c"}, got)
}
