//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStartup starts whole processes, each once per iteration, in
// turn: a baseline binary that links vtexec's third-party dependencies
// and does nothing, `vtexec check -- ls`, `vtexec run -- 'cat small'`
// without and with the kernel box, and cat itself. It reports the median
// of each in ms, and vtexec's part: check-baseline, run-baseline-cat
// (unconfined) and confined-unconfined (the box's own cost). Run it with
// a fixed count:
//
//	go test -run '^$' -bench Startup -benchtime 300x ./cmd/vtexec
func BenchmarkStartup(b *testing.B) {
	ws := cliWorkspace(b)
	small := filepath.Join(ws, "small")
	if err := os.WriteFile(small, []byte("one small line\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		b.Fatal(err)
	}
	vtexec := goBuild(b, ".", "vtexec")
	baseline := goBuild(b, "./testdata/baseline", "baseline")
	cases := []struct {
		name string
		argv []string
	}{
		{"baseline", []string{baseline}},
		{"check", []string{vtexec, "check", "--", "ls"}},
		{"run", []string{vtexec, "run", "--confinement", "off", "--", "cat small"}},
		{"cat", []string{cat, "small"}},
		{"run-confined", []string{vtexec, "run", "--", "cat small"}},
	}
	times := make([][]time.Duration, len(cases))
	for b.Loop() {
		for i, c := range cases {
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			cmd.Dir = ws
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", c.name, err, out)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	med := make([]float64, len(cases))
	for i, c := range cases {
		med[i] = median(times[i])
		b.ReportMetric(med[i], c.name+"-ms")
	}
	b.ReportMetric(med[1]-med[0], "check-baseline-ms")
	b.ReportMetric(med[2]-med[0]-med[3], "run-baseline-cat-ms")
	b.ReportMetric(med[4]-med[2], "confined-unconfined-ms")
	b.ReportMetric(0, "ns/op")
}

// median returns the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
