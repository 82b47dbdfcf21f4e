//go:build linux

package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/plan"
)

// boxed is a launcher that runs programs in a box of their own (the
// first program of a run is the first process of its PID namespace).
func boxed(t *testing.T, dir string) Launcher {
	b, err := confine.Open(confine.Spec{ReadWrite: []string{dir}}, confine.ModeRequired)
	require.NoError(t, err)
	t.Cleanup(func() { b.CloseLast() })
	return Boxed{Box: b}
}

// A boxed program is the first process of its own PID namespace, which
// the kernel spares a signal it does not catch: when a run is stopped,
// one that would end on SIGTERM anywhere else ends at once, not after
// the grace; one that catches SIGTERM still gets it and ends as it
// chooses; one that ignores it is killed after the grace.
func TestStoppedBoxedProgramEndsAsSIGTERMWould(t *testing.T) {
	tests := []struct {
		name      string
		argv      []string
		grace     time.Duration
		graceWait bool
		stdout    string // a regular expression of the whole output
	}{
		{"ends on SIGTERM", []string{"sleep", "300"}, 4 * time.Second, false, ""},
		{"catches SIGTERM", []string{"sh", "-c", `trap 'echo caught; exit 3' TERM; echo ready; while :; do sleep 0.05; done`}, 4 * time.Second, false, "ready\ncaught\n"},
		{"ignores SIGTERM", []string{"sh", "-c", `trap '' TERM; echo ready; sleep 300`}, time.Second, true, "ready\n"},
		// The first process would end, but its child catches SIGTERM:
		// killing the first would take the child's ending with it. Once
		// the child has ended, the first may be killed as SIGTERM would
		// have ended it (before or after its "after").
		{"its child catches SIGTERM", []string{"sh", "-c", `sh -c 'trap "echo caught; exit 3" TERM; echo ready; while :; do sleep 0.05; done'; echo after`},
			4 * time.Second, false, "ready\ncaught\n(after\n)?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, via := range []string{"Run", "Single"} {
				ws := newWS(t)
				dir := ws.Root()
				cmd := command(t, dir, tt.argv...)
				opts := Options{Grace: tt.grace, Launcher: boxed(t, dir)}
				ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
				start := time.Now()
				var stdout string
				if via == "Run" {
					res, err := Run(ctx, planOf(step(plan.Seq, cmd)), ws, opts)
					require.NoError(t, err)
					assert.True(t, res.TimedOut)
					stdout = res.Stdout
				} else {
					out := filepath.Join(t.TempDir(), "out")
					f, err := os.Create(out)
					require.NoError(t, err)
					_, err = NewSingle(opts).Exec(ctx, cmd, nil, f, io.Discard)
					f.Close()
					assert.ErrorIs(t, err, context.DeadlineExceeded)
					stdout = readFile(t, out)
				}
				cancel()
				took := time.Since(start)
				assert.Regexp(t, "^"+tt.stdout+"$", stdout, via)
				if tt.graceWait {
					assert.GreaterOrEqual(t, took, tt.grace, "%s: killed before its grace", via)
				} else {
					assert.Less(t, took, tt.grace, "%s: waited for the grace", via)
				}
				t.Logf("%s: stopped after %s", via, took)
			}
		})
	}
}

// A pipeline none of whose programs minds SIGTERM ends at once when it
// is stopped, as it would anywhere else (its programs are not the first
// process of their namespace: SIGTERM ends them; endsOnSIGTERM must not
// keep them waiting).
func TestStoppedBoxedPipelineEndsAsSIGTERMWould(t *testing.T) {
	ws := newWS(t)
	dir := ws.Root()
	opts := Options{Grace: 4 * time.Second, Launcher: boxed(t, dir)}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, planOf(step(plan.Seq, command(t, dir, "sleep", "300"), command(t, dir, "cat"))), ws, opts)
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Less(t, time.Since(start), opts.Grace, "waited for the grace")
}
