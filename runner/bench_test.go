//go:build !windows

package runner

import (
	"context"
	"os/exec"
	"testing"

	"github.com/vtexec/vtexec/plan"
)

// BenchmarkRunOverhead compares starting /bin/true directly with running it
// through Run; the difference is the runner's cost per command.
func BenchmarkRunOverhead(b *testing.B) {
	b.Run("Direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Runner", func(b *testing.B) {
		ws := newWS(b)
		p := planOf(step(plan.Seq, plan.Cmd{Argv: []string{"true"}, Program: "/bin/true", Dir: ws.Root()}))
		ctx := context.Background()
		for b.Loop() {
			res, err := Run(ctx, p, ws, Options{})
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("Run: %v, %+v", err, res)
			}
		}
	})
}
