//go:build linux

package runner

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
)

// With a Terminal, a pipeline reads it as stdin and writes its output
// and errors to it: the programs see a terminal, and the captures keep
// none of their output.
func TestTerminalIsStdinStdoutAndStderr(t *testing.T) {
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	ws := newWS(t)
	dir := ws.Root()
	p := planOf(
		step(plan.Seq, command(t, dir, "test", "-t", "0")),
		step(plan.And, command(t, dir, "head", "-n", "1"), command(t, dir, "tr", "a-z", "A-Z")),
		step(plan.Seq, command(t, dir, "ls", "missing-file-7f3")),
	)
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(ptmx)
		for sc.Scan() {
			lines <- strings.TrimRight(sc.Text(), "\r")
		}
		close(lines)
	}()
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(context.Background(), p, ws, Options{Terminal: tty, Timeout: 10 * time.Second})
		assert.NoError(t, err)
		done <- res
	}()
	_, err = ptmx.Write([]byte("typed-line\n"))
	require.NoError(t, err)
	var res *Result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
	tty.Close()
	var seen []string
	for l := range lines {
		seen = append(seen, l)
	}
	assert.Contains(t, seen, "TYPED-LINE", "head read the terminal, tr wrote to it")
	assert.True(t, strings.Contains(strings.Join(seen, "\n"), "missing-file-7f3"), "stderr goes to the terminal: %q", seen)
	require.NotNil(t, res)
	assert.NotZero(t, res.ExitCode, "ls of a missing file")
	assert.Empty(t, res.Stdout)
	assert.Empty(t, res.Stderr)
}
