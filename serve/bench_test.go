package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStdioAgainstBaselines measures, interleaved in one run, the
// two goals of vtexec serve: a shell call over stdio for cat of a small
// file against running cat directly (shell/cat-x, goal ≤ 2), and a
// shell_check call against a no-op tool of an SDK server over the same
// transport (check/noop-throughput, goal ≥ 0.8). Medians, in ms.
func BenchmarkStdioAgainstBaselines(b *testing.B) {
	cs, ws, _, _ := startServe(b)
	defer cs.Close()
	small := filepath.Join(ws, "small.txt")
	if err := os.WriteFile(small, []byte("a small file\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	noopBin := filepath.Join(b.TempDir(), "noopmcp")
	if out, err := exec.Command("go", "build", "-o", noopBin, "./testdata/noopmcp").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	noop, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(noopBin)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer noop.Close()
	cat, err := exec.LookPath("cat")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	timed := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	toolCall := func(cs *mcp.ClientSession, tool, command string) func() error {
		return func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"command": command}})
			if err == nil && res.IsError {
				b.Fatalf("%s %q: %v", tool, command, res.Content)
			}
			return err
		}
	}
	var shellT, catT, checkT, noopT []time.Duration
	for b.Loop() {
		shellT = append(shellT, timed(toolCall(cs, ToolShell, "cat small.txt")))
		catT = append(catT, timed(exec.Command(cat, small).Run))
		checkT = append(checkT, timed(toolCall(cs, ToolCheck, "cat small.txt")))
		noopT = append(noopT, timed(toolCall(noop, "noop", "cat small.txt")))
	}
	ms := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / float64(time.Millisecond)
	}
	s, c, k, n := ms(shellT), ms(catT), ms(checkT), ms(noopT)
	b.ReportMetric(s, "shell-ms")
	b.ReportMetric(c, "cat-ms")
	b.ReportMetric(s/c, "shell/cat-x")
	b.ReportMetric(k, "check-ms")
	b.ReportMetric(n, "noop-ms")
	b.ReportMetric(n/k, "check/noop-throughput")
}
