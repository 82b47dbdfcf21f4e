//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SIGTERM to vtexec run ends the command promptly and vtexec removes the
// run's private directories before it exits: the HOME the command saw is
// gone. Without the handler the signal's default action would end vtexec
// at once and leave them.
func TestRunSIGTERMEndsCommandAndRemovesItsDirectories(t *testing.T) {
	ws := cliWorkspace(t)
	cmd := exec.Command(goBuild(t, ".", "vtexec"), "run", "--workspace", ws, "--no-prompt", "--", "env > env.txt && sleep 30")
	cmd.Dir = ws
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	home := ""
	deadline := time.After(20 * time.Second)
	for home == "" {
		select {
		case <-exited:
			t.Fatalf("vtexec ended before the command wrote its environment: %s", stderr.String())
		case <-deadline:
			t.Fatal("the command did not write its environment within 20 s")
		case <-time.After(10 * time.Millisecond):
		}
		data, _ := os.ReadFile(filepath.Join(ws, "env.txt"))
		for _, line := range strings.Split(string(data), "\n") {
			if h, ok := strings.CutPrefix(line, "HOME="); ok && filepath.IsAbs(h) {
				home = h
			}
		}
	}
	require.DirExists(t, home)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	start := time.Now()
	select {
	case <-exited:
		t.Logf("exited %s after SIGTERM", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("still running 5 s after SIGTERM")
	}
	assert.NoDirExists(t, home, "the run's HOME outlived vtexec")
}
