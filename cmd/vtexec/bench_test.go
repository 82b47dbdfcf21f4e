package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
)

// BenchmarkCheckStream measures check --jsonl throughput over a mix of
// typical commands; see the commands/s metric.
func BenchmarkCheckStream(b *testing.B) {
	ws := cliWorkspace(b)
	cmds := []string{
		"ls -la", "cat src/a.txt | wc -l", "head -n 20 README.md && tail -n 5 README.md",
		"cd src && ls", "cat ../etc/passwd", "echo $(id)", "ls src/*.txt > out.txt 2>&1",
		"wc -l README.md src/a.txt", "bash -lc 'cat README.md | head -n 3'", "make test",
	}
	const lines = 10000
	var in bytes.Buffer
	for i := 0; i < lines; i++ {
		line, _ := json.Marshal(map[string]string{"cmd": cmds[i%len(cmds)]})
		in.Write(append(line, '\n'))
	}
	data := in.Bytes()
	ctx := context.Background()
	for b.Loop() {
		if err := checkStream(ctx, streamConfig{wsDir: ws, auditLog: "off"}, bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "commands/s")
}
