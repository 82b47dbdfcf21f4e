package vtexec

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// typicalCommands are what coding agents send most: reads, searches,
// small pipelines, a cd, and a few refusals.
var typicalCommands = []string{
	"ls -la",
	"cat src/a.txt | wc -l",
	"head -n 20 README.md && tail -n 5 README.md",
	"cd src && ls",
	"cat ../etc/passwd",
	"echo $(id)",
	"ls src/*.txt > out.txt 2>&1",
	"wc -l README.md src/a.txt",
	"bash -lc 'cat README.md | head -n 3'",
	"make test",
}

func benchWorkspace(b *testing.B) string {
	dir := b.TempDir()
	for _, f := range []string{"README.md", "src/a.txt", "src/b.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkCheck measures one Check of a typical command, including
// opening the workspace, as every CLI call and JSON line does.
func BenchmarkCheck(b *testing.B) {
	dir := benchWorkspace(b)
	ctx := context.Background()
	for _, cmd := range typicalCommands {
		b.Run(cmd, func(b *testing.B) {
			req := Request{Command: cmd, Workspace: dir}
			for b.Loop() {
				if _, err := Check(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
