//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// readLineWithin reads one line from r, failing the test after d.
func readLineWithin(t *testing.T, r *bufio.Reader, d time.Duration) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		line, _ := r.ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		return line
	case <-time.After(d):
		t.Fatalf("no answer within %s", d)
		return ""
	}
}

// A harness that sends one line and waits gets its answer at once, not
// at the end of the stream.
func TestCheckStreamAnswersEachLineAtOnce(t *testing.T) {
	ws := cliWorkspace(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"check", "--jsonl", "--workspace", ws}, inR, outW, io.Discard)
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	for _, cmd := range []string{"cat README.md", "cat ../x"} {
		_, err := io.WriteString(inW, `{"cmd":"`+cmd+`"}`+"\n")
		require.NoError(t, err)
		var d struct{ Cmd, Decision string }
		require.NoError(t, json.Unmarshal([]byte(readLineWithin(t, out, 5*time.Second)), &d))
		assert.Equal(t, cmd, d.Cmd)
	}
	inW.Close()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end at EOF")
	}
}

// SIGTERM ends a stream that waits for its next line, promptly.
func TestCheckStreamEndsOnSIGTERM(t *testing.T) {
	ws := cliWorkspace(t)
	// The binary as users get it (the race detector's own exit alone
	// takes a second).
	cmd := exec.Command(goBuild(t, ".", "vtexec"), "check", "--jsonl", "--workspace", ws)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	_, err = io.WriteString(stdin, `{"cmd":"ls"}`+"\n")
	require.NoError(t, err)
	assert.Contains(t, readLineWithin(t, bufio.NewReader(stdout), 10*time.Second), `"decision":"allow"`)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	start := time.Now()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
		t.Logf("exited %s after SIGTERM", time.Since(start))
	case <-time.After(time.Second):
		t.Fatal("still running 1 s after SIGTERM")
	}
}

func TestPrintWarnings(t *testing.T) {
	var b strings.Builder
	printWarnings(&b, []vtexec.Warning{{Code: "audit_failed", Reason: "disk full"}, {Code: "session_not_saved", Reason: "x"}})
	assert.Equal(t, "vtexec: warning: audit_failed: disk full\nvtexec: warning: session_not_saved: x\n", b.String())
}
