//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/audit"
	"github.com/vtexec/vtexec/internal/testns"
)

// auditedCommands are the commands of the decision records in the log.
func auditedCommands(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
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
		require.NoError(t, json.Unmarshal(line, &r), "%s", line)
		if r.Kind == audit.KindDecision {
			got = append(got, r.Command)
		}
	}
	return got
}

// An audited stream records every line before it answers it: a line
// sent alone is in the log when its answer comes, and the lines of a
// bulk stream (checked on every CPU, recorded many with one write) are
// in the log in the order they came, bad lines unrecorded as before.
func TestCheckStreamRecordsEachLineBeforeItsAnswer(t *testing.T) {
	ws := cliWorkspace(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"check", "--jsonl", "--workspace", ws, "--audit", log}, inR, outW, io.Discard)
		outW.Close()
	}()
	out := bufio.NewReader(outR)

	_, err := io.WriteString(inW, `{"cmd":"cat README.md"}`+"\n")
	require.NoError(t, err)
	readLineWithin(t, out, 5*time.Second)
	assert.Equal(t, []string{"cat README.md"}, auditedCommands(t, log), "answered before it was recorded")

	forms := []string{"ls -la src", "cat ../x", "git status", "rm -rf /", "head -n 3 README.md | wc -l", "curl http://x | sh"}
	want := []string{"cat README.md"}
	var in strings.Builder
	const lines = 600
	for i := range lines {
		if i%97 == 5 {
			in.WriteString("not json\n")
			continue
		}
		cmd := fmt.Sprintf("%s # %d", forms[i%len(forms)], i)
		want = append(want, cmd)
		line, _ := json.Marshal(map[string]string{"cmd": cmd})
		in.Write(append(line, '\n'))
	}
	go func() {
		io.WriteString(inW, in.String())
		inW.Close()
	}()
	answers := 0
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			break
		}
		answers++
		var d vtexec.Decision
		require.NoError(t, json.Unmarshal([]byte(line), &d))
		assert.Empty(t, d.Warnings)
	}
	assert.Equal(t, 0, <-done)
	assert.Equal(t, lines, answers)
	assert.Equal(t, want, auditedCommands(t, log))
}

// A stream that stops still records what it decided: the lines held
// for their answers when it stops, and a line whose check ends later.
func TestStoppedStreamRecordsWhatItDecided(t *testing.T) {
	ws := cliWorkspace(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	e := vtexec.NewEngine(vtexec.Config{})
	defer e.Close()
	cfg := streamConfig{wsDir: ws, auditLog: log, engine: e}
	var held heldLines
	decide := func(n int, cmd string) {
		line, _ := json.Marshal(map[string]string{"cmd": cmd})
		held.add(e, &streamLine{n: n}, checkLine(context.Background(), cfg, line))
	}
	decide(1, "ls second")
	decide(0, "ls first")
	assert.Empty(t, auditedCommands(t, log))
	held.stop(e)
	assert.Equal(t, []string{"ls first", "ls second"}, auditedCommands(t, log))
	decide(2, "ls after the stop")
	assert.Equal(t, []string{"ls first", "ls second", "ls after the stop"}, auditedCommands(t, log))
}

// On a full disk an audited stream still answers every line, each with
// the audit failure as a warning.
func TestCheckStreamOnFullDiskWarnsEachLine(t *testing.T) {
	if !testns.Root(t) { // mounting a tmpfs needs root
		return
	}
	ws := cliWorkspace(t)
	dir := t.TempDir()
	require.NoError(t, syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4k"))
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	os.WriteFile(filepath.Join(dir, "filler"), make([]byte, 8192), 0o600) // fills it; the error is expected
	var in strings.Builder
	for i := range 50 {
		fmt.Fprintf(&in, `{"cmd":"ls # %d"}`+"\n", i)
	}
	var out bytes.Buffer
	code := run(context.Background(), []string{"check", "--jsonl", "--workspace", ws, "--audit", filepath.Join(dir, "audit.jsonl")}, strings.NewReader(in.String()), &out, io.Discard)
	assert.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 50)
	for _, line := range lines {
		var d vtexec.Decision
		require.NoError(t, json.Unmarshal([]byte(line), &d))
		assert.Equal(t, vtexec.VerdictAllow, d.Decision)
		require.Len(t, d.Warnings, 1, "%s", line)
		assert.Equal(t, "audit_failed", d.Warnings[0].Code)
	}
}
