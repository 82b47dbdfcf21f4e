package serve

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// progressClient connects a client that sends every progress message
// it receives on the returned channel.
func progressClient(t *testing.T, s *Server) (*mcp.ClientSession, <-chan *mcp.ProgressNotificationParams) {
	ch := make(chan *mcp.ProgressNotificationParams, 100)
	cs := connect(t, s, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			ch <- req.Params
		},
	})
	return cs, ch
}

func TestProgressCarriesLatestOutput(t *testing.T) {
	s, ws := newServer(t)
	log := filepath.Join(ws, "build.log")
	require.NoError(t, os.WriteFile(log, []byte("step one\n"), 0o644))
	cs, progress := progressClient(t, s)

	params := &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"command": "tail -f build.log", "timeout_ms": 3500}}
	params.SetProgressToken("tok-7")
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		res, err := cs.CallTool(context.Background(), params)
		done <- answer{res, err}
	}()

	var first *mcp.ProgressNotificationParams
	select {
	case first = <-progress:
	case <-done:
		t.Fatal("the call ended before any report")
	}
	assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond, "no report in the first second")
	assert.Equal(t, "tok-7", first.ProgressToken)
	assert.Regexp(t, `^running for \d+s\nstdout \(last lines\):\nstep one\n$`, first.Message)

	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("step two\n")
	require.NoError(t, err)
	f.Close()

	var a answer
	for seen := false; !seen; {
		select {
		case p := <-progress:
			assert.Greater(t, p.Progress, first.Progress, "progress grows")
			seen = strings.Contains(p.Message, "stdout (last lines):\nstep one\nstep two\n")
		case a = <-done:
			t.Fatal("the call ended before a report showed the new output")
		}
	}
	a = <-done
	require.NoError(t, a.err)
	r := structured(t, a.res)
	assert.True(t, r.TimedOut)
	assert.Equal(t, "step one\nstep two\n", r.Stdout)
}

func TestNoProgressWithoutToken(t *testing.T) {
	old := progressEvery
	progressEvery = 100 * time.Millisecond
	t.Cleanup(func() { progressEvery = old })
	s, ws := newServer(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "log"), []byte("x\n"), 0o644))
	cs, progress := progressClient(t, s)
	_, _, r := call(t, cs, ToolShell, map[string]any{"command": "tail -f log", "timeout_ms": 600})
	assert.True(t, r.TimedOut)
	assert.Empty(t, progress)
}

// Cancelling the call kills the command, whose process is gone at once.
func TestCancelKillsTheCommand(t *testing.T) {
	old := progressEvery
	progressEvery = 200 * time.Millisecond
	t.Cleanup(func() { progressEvery = old })
	s, ws := newServer(t)
	name := "cancel-" + filepath.Base(ws) + ".log"
	require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte("started\n"), 0o644))
	cs, progress := progressClient(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	params := &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"command": "tail -f " + name + " | grep -F " + name, "timeout_ms": 60000}}
	params.SetProgressToken(1)
	var wg sync.WaitGroup
	var callErr error
	wg.Go(func() { _, callErr = cs.CallTool(ctx, params) })

	<-progress // it runs
	for start := time.Now(); len(running(t, name)) < 2; {
		require.Less(t, time.Since(start), 5*time.Second, "tail and grep did not both start")
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	cancel()
	wg.Wait()
	assert.ErrorIs(t, callErr, context.Canceled)
	for len(running(t, name)) > 0 {
		require.Less(t, time.Since(start), 5*time.Second, "the pipeline still runs after the call was cancelled")
		time.Sleep(20 * time.Millisecond)
	}
}

// running returns the pids of live processes whose arguments include
// arg.
func running(t *testing.T, arg string) []string {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []string
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("\x00"+arg+"\x00")) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err == nil && !bytes.Contains(stat, []byte(") Z ")) {
			pids = append(pids, d.Name())
		}
	}
	return pids
}
