package vtexec

import (
	"context"
	"os"
	"os/exec"
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
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("XDG_STATE_HOME", b.TempDir())
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
			req := Request{Command: cmd, Workspace: dir, AuditLog: "off"}
			for b.Loop() {
				if _, err := testEngine.Check(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunOverhead compares Run (check + exec through the runner) with
// exec.Command running the same program directly.
func BenchmarkRunOverhead(b *testing.B) {
	dir := benchWorkspace(b)
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/usr/bin/cat", "README.md")
			cmd.Dir = dir
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("vtexec", func(b *testing.B) {
		req := Request{Command: "cat README.md", Workspace: dir, AuditLog: "off"}
		for b.Loop() {
			res, err := testEngine.Run(ctx, req)
			if err != nil || res.ExitCode != 0 {
				b.Fatal(err, res.Decision.Reason)
			}
		}
	})
}

// BenchmarkRunConfinement compares Run of cat on a small file with the
// kernel box (the default) and without it (confinement off).
func BenchmarkRunConfinement(b *testing.B) {
	dir := benchWorkspace(b)
	ctx := context.Background()
	for _, mode := range []string{"off", "required"} {
		b.Run(mode, func(b *testing.B) {
			req := Request{Command: "cat README.md", Workspace: dir, AuditLog: "off", Confinement: mode}
			for b.Loop() {
				res, err := testEngine.Run(ctx, req)
				if err != nil || res.ExitCode != 0 {
					b.Fatal(err, res.Decision.Reason, res.Stderr)
				}
			}
		})
	}
}

// BenchmarkRunInterpreter compares the same two commands run through the
// static plan and through the interpreter (the second form needs it for
// its $?): what the interpreter adds to a request.
func BenchmarkRunInterpreter(b *testing.B) {
	dir := benchWorkspace(b)
	ctx := context.Background()
	for _, tc := range []struct{ name, cmd string }{
		{"static", "cat README.md; cat src/a.txt"},
		{"interpreter", "cat README.md; cat src/a.txt; : $?"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := Request{Command: tc.cmd, Workspace: dir, AuditLog: "off"}
			for b.Loop() {
				res, err := testEngine.Run(ctx, req)
				if err != nil || res.ExitCode != 0 || res.Stdout != "x\nx\n" {
					b.Fatal(err, res.Decision.Reason, res.Stdout, res.Stderr)
				}
			}
		})
	}
}
