package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCheckStreamWithPolicy is BenchmarkCheckStream with a user
// policy of 20 rules, each with examples checked when the file loads.
func BenchmarkCheckStreamWithPolicy(b *testing.B) {
	ws := cliWorkspace(b)
	var pol bytes.Buffer
	for i := range 20 {
		fmt.Fprintf(&pol, "[[rule]]\nprogram = \"make\"\nsubcommand = [\"t%d\"]\ndecision = \"allow\"\nmatch = [\"make t%d -j4\"]\nnot_match = [\"make clean\"]\n\n", i, i)
	}
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec", "policy.toml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(user, pol.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond) // a file that has just changed is read again
	cmds := []string{"ls -la", "cat src/a.txt | wc -l", "make t3", "cat ../etc/passwd", "make test"}
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
