//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer collects what the child writes to its terminal.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// underPTY runs the vtexec CLI on a pseudo-terminal (its controlling
// terminal, so the prompt opens /dev/tty), waits for the prompt, types
// keys, and returns everything the terminal showed and the exit code.
func underPTY(t *testing.T, keys string, args ...string) (string, int) {
	t.Helper()
	// A short ask timeout, so a lost key shows as a failure, not a wait.
	if args[0] == "run" {
		args = append([]string{"run", "--ask-timeout", "15s"}, args[1:]...)
	}
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "VTEXEC_TEST_AS_CLI=1")
	ptmx, err := pty.Start(cmd)
	require.NoError(t, err)
	defer ptmx.Close()
	var out lockedBuffer
	copied := make(chan struct{})
	go func() { _, _ = bytesCopy(&out, ptmx); close(copied) }()

	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "[d]eny") {
		require.True(t, time.Now().Before(deadline), "no prompt; terminal showed: %q", out.String())
		time.Sleep(10 * time.Millisecond)
	}
	_, err = ptmx.Write([]byte(keys))
	require.NoError(t, err)
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	return out.String(), code
}

func bytesCopy(dst *lockedBuffer, src *os.File) (int64, error) {
	buf := make([]byte, 4096)
	var n int64
	for {
		m, err := src.Read(buf)
		dst.Write(buf[:m])
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
}

const ptyAsk = "tar -cf out.tar README.md"

func checkCode(t *testing.T, ws string, extra ...string) int {
	t.Helper()
	code, _, _ := cli(t, "", append(append([]string{"check", "--workspace", ws}, extra...), "--", ptyAsk)...)
	return code
}

func TestPromptOnceRunsAndForgets(t *testing.T) {
	ws := cliWorkspace(t)
	shown, code := underPTY(t, "o", "run", "--workspace", ws, "--", ptyAsk)
	assert.Equal(t, 0, code, shown)
	assert.Contains(t, shown, "tar -cf out.tar README.md")
	assert.Contains(t, shown, "[a]lways")
	assert.FileExists(t, filepath.Join(ws, "out.tar"))
	assert.Equal(t, exitAsk, checkCode(t, ws), "once is not remembered")
}

func TestPromptSessionRemembersThatSessionOnly(t *testing.T) {
	ws := cliWorkspace(t)
	shown, code := underPTY(t, "s", "run", "--workspace", ws, "--session", "S1", "--", ptyAsk)
	require.Equal(t, 0, code, shown)
	assert.Equal(t, exitAllow, checkCode(t, ws, "--session", "S1"))
	assert.Equal(t, exitAsk, checkCode(t, ws, "--session", "S2"))
	assert.Equal(t, exitAsk, checkCode(t, ws))
}

func TestPromptAlwaysPersists(t *testing.T) {
	ws := cliWorkspace(t)
	shown, code := underPTY(t, "a", "run", "--workspace", ws, "--", ptyAsk)
	require.Equal(t, 0, code, shown)
	assert.Equal(t, exitAllow, checkCode(t, ws), "a later non-interactive check allows")
	rc, out, _ := cli(t, "", "policy", "list", "--workspace", ws)
	assert.Equal(t, 0, rc)
	assert.Contains(t, out, "tar -cf out.tar README.md")
}

func TestPromptRefusals(t *testing.T) {
	for name, keys := range map[string]string{"d": "d", "Enter": "\r", "EOF (Ctrl-D)": "\x04", "Ctrl-C": "\x03"} {
		t.Run(name, func(t *testing.T) {
			ws := cliWorkspace(t)
			shown, code := underPTY(t, keys, "run", "--workspace", ws, "--", ptyAsk)
			assert.Equal(t, 126, code, shown)
			assert.Contains(t, shown, "denied_by_user: a person refused:")
			assert.NotContains(t, shown, "no answer (", "the key was read, not the timeout")
			assert.NoFileExists(t, filepath.Join(ws, "out.tar"), "nothing runs")
			assert.Equal(t, exitAsk, checkCode(t, ws))
		})
	}
}

func TestPromptNeverAlwaysIgnoresA(t *testing.T) {
	ws := cliWorkspace(t)
	// "a" is not an answer for inline code; the following "d" is.
	shown, code := underPTY(t, "ad", "run", "--workspace", ws, "--", "perl -e 'print 1'")
	assert.Equal(t, 126, code, shown)
	assert.NotContains(t, shown, "[a]lways")
}

func TestRunNoPromptRefusesOnATerminal(t *testing.T) {
	ws := cliWorkspace(t)
	// On a terminal without CI, --no-prompt still never asks.
	cmd := exec.Command(os.Args[0], "run", "--no-prompt", "--workspace", ws, "--", ptyAsk)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "VTEXEC_TEST_AS_CLI=1")
	ptmx, err := pty.Start(cmd)
	require.NoError(t, err)
	defer ptmx.Close()
	var out lockedBuffer
	go func() { _, _ = bytesCopy(&out, ptmx) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("run --no-prompt waited for an answer; terminal showed %q", out.String())
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 126, ee.ExitCode())
	assert.NoFileExists(t, filepath.Join(ws, "out.tar"))
}
