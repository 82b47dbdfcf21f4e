//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/testns"

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

// startStream runs `check --jsonl` in ws on pipes: its input, its
// answers, and its exit code once the input is closed.
func startStream(ws string) (*io.PipeWriter, *bufio.Reader, <-chan int) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"check", "--jsonl", "--workspace", ws}, inR, outW, io.Discard)
		outW.Close()
	}()
	return inW, bufio.NewReader(outR), done
}

// A harness that sends one line and waits gets its answer at once, not
// at the end of the stream.
func TestCheckStreamAnswersEachLineAtOnce(t *testing.T) {
	inW, out, done := startStream(cliWorkspace(t))
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
	case <-time.After(5 * time.Second):
		t.Fatal("still running 5 s after SIGTERM")
	}
}

func TestPrintWarnings(t *testing.T) {
	var b strings.Builder
	printWarnings(&b, []vtexec.Warning{{Code: "audit_failed", Reason: "disk full"}, {Code: "session_not_saved", Reason: "x"}})
	assert.Equal(t, "vtexec: warning: audit_failed: disk full\nvtexec: warning: session_not_saved: x\n", b.String())
}

// An audit log that is a FIFO is refused with bad_state, not waited on.
func TestCheckRefusesFIFOAuditLog(t *testing.T) {
	ws := cliWorkspace(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	require.NoError(t, syscall.Mkfifo(audit, 0o600))
	code, out, stderr := cli(t, "", "check", "--workspace", ws, "--audit", audit, "--", "ls")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "bad_state")
}

// On a full disk, check and run still answer, with the audit failure as
// a warning: on stderr in text mode, in "warnings" in JSON.
func TestAuditOnFullDiskIsAWarning(t *testing.T) {
	if !testns.Root(t) { // mounting a tmpfs needs root
		return
	}
	ws := cliWorkspace(t)
	dir := t.TempDir()
	require.NoError(t, syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4k"))
	t.Cleanup(func() {
		engine().Close() // it keeps the audit log open
		syscall.Unmount(dir, 0)
	})
	os.WriteFile(filepath.Join(dir, "filler"), make([]byte, 8192), 0o600) // fills it; the error is expected
	audit := filepath.Join(dir, "audit.jsonl")

	code, out, stderr := cli(t, "", "check", "--workspace", ws, "--audit", audit, "--", "ls")
	assert.Equal(t, exitAllow, code, stderr)
	assert.Equal(t, "allow\n", out)
	assert.Contains(t, stderr, "vtexec: warning: audit_failed: ")

	code, out, stderr = cli(t, "", "run", "--workspace", ws, "--audit", audit, "--", "cat README.md")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "l1\nl2\nl3\n", out)
	assert.Contains(t, stderr, "vtexec: warning: audit_failed: ")

	code, out, _ = cli(t, "", "run", "--json", "--workspace", ws, "--audit", audit, "--", "cat README.md")
	assert.Equal(t, 0, code)
	var res struct {
		Stdout   string
		Warnings []struct{ Code, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, "l1\nl2\nl3\n", res.Stdout)
	require.NotEmpty(t, res.Warnings)
	assert.Equal(t, "audit_failed", res.Warnings[0].Code)
}

// SIGTERM and SIGINT end a run in order: its program is stopped and the
// answer still comes, whole (a single check keeps the signals' default
// and only a run, a server and a stream install a handler).
func TestRunEndsInOrderOnSignals(t *testing.T) {
	ws := cliWorkspace(t)
	bin := goBuild(t, ".", "vtexec")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin, "run", "--json", "--workspace", ws, "--", "echo started; sleep 30")
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = io.Discard
		require.NoError(t, cmd.Start())
		out := bufio.NewReader(stdout)
		// vtexec streams nothing before the end; the second program has
		// started once a process named sleep is among its descendants
		// (echo, seen a moment, may be gone by a second look).
		deadline := time.Now().Add(10 * time.Second)
		for !hasDescendant(cmd.Process.Pid, "sleep") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		require.True(t, hasDescendant(cmd.Process.Pid, "sleep"), "the program did not start")
		start := time.Now()
		require.NoError(t, cmd.Process.Signal(sig))
		body, err := io.ReadAll(out)
		require.NoError(t, err)
		werr := cmd.Wait()
		assert.Less(t, time.Since(start), 10*time.Second, "%v: ended promptly", sig)
		var res struct {
			Stdout   string `json:"stdout"`
			ExitCode int    `json:"exit_code"`
		}
		require.NoError(t, json.Unmarshal(body, &res), "%v: a whole answer, not a process killed mid-run: %q (%v)", sig, body, werr)
		assert.Equal(t, "started\n", res.Stdout, "%v", sig)
		assert.NotEqual(t, 0, res.ExitCode, "%v: the program was stopped", sig)
	}
}

// hasDescendant reports whether a process named comm descends from pid,
// whichever of its threads started it.
func hasDescendant(pid int, comm string) bool {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			name, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", child))
			if strings.TrimSpace(string(name)) == comm || hasDescendant(child, comm) {
				return true
			}
		}
	}
	return false
}

// A stream reads what its caches watch once per line, as the line
// begins: a program installed between two lines is found by the second,
// though it was kept as missing for the lines before.
func TestCheckStreamSeesChangesBetweenLines(t *testing.T) {
	ws := cliWorkspace(t)
	bin := t.TempDir()
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec", "policy.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o755))
	require.NoError(t, os.WriteFile(user, []byte(fmt.Sprintf("[paths]\nextra = [%q]\n", bin)), 0o644))
	inW, out, done := startStream(ws)
	program := func() string {
		t.Helper()
		_, err := io.WriteString(inW, `{"cmd":"vtexec-stream-tool --version"}`+"\n")
		require.NoError(t, err)
		var d struct{ Commands []struct{ Program string } }
		require.NoError(t, json.Unmarshal([]byte(readLineWithin(t, out, 5*time.Second)), &d))
		if len(d.Commands) == 0 {
			return ""
		}
		return d.Commands[0].Program
	}
	for range 3 { // kept as missing from the second on
		assert.Empty(t, program())
	}
	tool := filepath.Join(bin, "vtexec-stream-tool")
	require.NoError(t, os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755))
	assert.Equal(t, tool, program(), "installed between lines")
	require.NoError(t, os.Remove(tool))
	assert.Empty(t, program(), "removed between lines")
	inW.Close()
	<-done
}
