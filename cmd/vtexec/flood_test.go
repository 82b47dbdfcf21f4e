//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec/internal/testbin"
)

// procStatus reads a field (Threads, VmRSS in kB) of /proc/PID/status.
func procStatus(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	t.Fatalf("no %s in status", field)
	return 0
}

// A client that sends 20,000 calls without reading the answers cannot
// make vtexec serve grow without bound: threads and memory stay flat,
// during the flood and after, and every call is answered in the end.
func TestServeFloodIsBounded(t *testing.T) {
	ws := cliWorkspace(t)
	bin, err := testbin.Build(t.TempDir(), "CGO_ENABLED=0")
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "--workspace", ws, "--audit", "off")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	outPipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReaderSize(outPipe, 1<<20)
	send := func(s string) {
		_, err := io.WriteString(in, s+"\n")
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	_, err = out.ReadBytes('\n')
	require.NoError(t, err)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	const calls = 20000
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= calls; i++ {
			// Half the calls run a command that takes a while, a third
			// of the rest run one that does not, the others only check.
			tool, cmd := "shell_check", "cat README.md"
			switch {
			case i%2 == 0:
				tool, cmd = "shell", "sleep 0.02"
			case i%3 == 0:
				tool = "shell"
			}
			if _, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"command":%q}}}`+"\n", i, tool, cmd); err != nil {
				return
			}
		}
	}()
	// While nobody reads, the server is watched.
	maxThreads, maxRSS := 0, 0
	for range 20 {
		time.Sleep(100 * time.Millisecond)
		maxThreads = max(maxThreads, procStatus(t, cmd.Process.Pid, "Threads"))
		maxRSS = max(maxRSS, procStatus(t, cmd.Process.Pid, "VmRSS"))
	}
	// Then every answer is read.
	answered := 0
	deadline := time.Now().Add(3 * time.Minute)
	for answered < calls && time.Now().Before(deadline) {
		line, err := out.ReadBytes('\n')
		require.NoError(t, err)
		if strings.Contains(string(line), `"id"`) {
			answered++
		}
		if answered%500 == 0 {
			maxThreads = max(maxThreads, procStatus(t, cmd.Process.Pid, "Threads"))
			maxRSS = max(maxRSS, procStatus(t, cmd.Process.Pid, "VmRSS"))
		}
	}
	<-sent
	assert.Equal(t, calls, answered, "every call is answered")
	t.Logf("threads at most %d, RSS at most %d MB", maxThreads, maxRSS/1024)
	assert.LessOrEqual(t, maxThreads, 64, "threads")
	assert.LessOrEqual(t, maxRSS, 128<<10, "RSS in kB")
}
