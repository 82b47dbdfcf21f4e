//go:build !windows

package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
)

// Output sees the captures while the run goes on: the first step's
// output is there before the second step ends.
func TestOutputIsReadableWhileRunning(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	p := planOf(
		step(plan.Seq, command(t, dir, "echo", "early")),
		step(plan.Seq, command(t, dir, "sleep", "1")),
	)
	var calls int
	seen := make(chan string, 1)
	res := runPlan(t, p, ws, Options{Output: func(stdout, stderr *Capture) {
		calls++
		go func() {
			for stdout.Total() == 0 {
				time.Sleep(10 * time.Millisecond)
			}
			seen <- stdout.String()
		}()
	}})
	require.Equal(t, 1, calls)
	select {
	case s := <-seen:
		assert.Equal(t, "early\n", s)
	default:
		t.Fatal("the output was not seen during the run")
	}
	assert.Equal(t, "early\n", res.Stdout)
}
