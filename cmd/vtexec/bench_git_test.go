//go:build !windows

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCheckStreamGit measures check --jsonl throughput in a real git
// repository: commands/s on BenchmarkCheckStream's mix of typical commands
// with one line in ten a git command, plain-commands/s on the mix alone,
// each stream in turn, and their ratio.
//
//	go test -run '^$' -bench CheckStreamGit ./cmd/vtexec
func BenchmarkCheckStreamGit(b *testing.B) {
	ws := cliWorkspace(b)
	b.Setenv("HOME", b.TempDir())
	// A repository of the size agents work in: 40 directories of 8 files
	// each, loose objects filling every objects/xx directory (the git
	// directory holds some 270 directories, as vtexec's own does).
	files := map[string]string{"go.mod": "module x\n", "src/main.go": "package main\n", "docs/guide.md": "# guide\n"}
	for d := range 40 {
		for f := range 8 {
			files[fmt.Sprintf("pkg%02d/file%d.go", d, f)] = fmt.Sprintf("package pkg%02d // %d\n", d, f)
		}
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "one"},
		{"commit", "-q", "--allow-empty", "-m", "two"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// The mix of BenchmarkCheckStream.
	typical := []string{
		"ls -la", "cat src/a.txt | wc -l", "head -n 20 README.md && tail -n 5 README.md",
		"cd src && ls", "cat ../etc/passwd", "echo $(id)", "ls src/*.txt > out.txt 2>&1",
		"wc -l README.md src/a.txt", "bash -lc 'cat README.md | head -n 3'", "make test",
	}
	git := []string{"git status", "git log --oneline -5", "git diff HEAD~1 -- README.md", "git show --stat HEAD"}
	const lines = 10000
	var plain, mixed bytes.Buffer
	for i, k := 0, 0; i < lines; i++ {
		line, _ := json.Marshal(map[string]string{"cmd": typical[i%len(typical)]})
		plain.Write(append(line, '\n'))
		cmd := git[(i/10)%len(git)]
		if i%10 != 9 {
			cmd = typical[k%len(typical)]
			k++
		}
		line, _ = json.Marshal(map[string]string{"cmd": cmd})
		mixed.Write(append(line, '\n'))
	}
	ctx := context.Background()
	// Every git line must be allowed: a refused one would skip the work
	// this measures.
	var out bytes.Buffer
	if err := checkStream(ctx, streamConfig{wsDir: ws, auditLog: "off"}, strings.NewReader(strings.Join(
		[]string{`{"cmd":"git status"}`, `{"cmd":"git log --oneline -5"}`, `{"cmd":"git diff HEAD~1 -- README.md"}`, `{"cmd":"git show --stat HEAD"}`}, "\n")+"\n"), &out); err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.Contains(l, `"decision":"allow"`) {
			b.Fatalf("a git line is not allowed: %s", l)
		}
	}
	// A long-lived stream's steady state: one pass first, so that what
	// a process makes once (git's answers, the inotify watches of what
	// is asked for again) is made before the clock starts.
	if err := checkStream(ctx, streamConfig{wsDir: ws, auditLog: "off"}, bytes.NewReader(mixed.Bytes()), io.Discard); err != nil {
		b.Fatal(err)
	}
	// Both mixes in turn, so that the machine's load falls on both alike.
	// commands/cpu-s is the git mix per second of the process's CPU time,
	// garbage collection on the other core included: it is less sensitive
	// to other load than the wall clock.
	var plainTime, mixedTime, mixedCPU time.Duration
	for b.Loop() {
		for _, m := range []struct {
			data      []byte
			took, cpu *time.Duration
		}{{plain.Bytes(), &plainTime, new(time.Duration)}, {mixed.Bytes(), &mixedTime, &mixedCPU}} {
			start, startCPU := time.Now(), cpuTime(b)
			if err := checkStream(ctx, streamConfig{wsDir: ws, auditLog: "off"}, bytes.NewReader(m.data), io.Discard); err != nil {
				b.Fatal(err)
			}
			*m.took += time.Since(start)
			*m.cpu += cpuTime(b) - startCPU
		}
	}
	b.ReportMetric(float64(lines*b.N)/plainTime.Seconds(), "plain-commands/s")
	b.ReportMetric(float64(lines*b.N)/mixedTime.Seconds(), "commands/s")
	b.ReportMetric(float64(lines*b.N)/mixedCPU.Seconds(), "commands/cpu-s")
	b.ReportMetric(plainTime.Seconds()/mixedTime.Seconds(), "git-mix/plain")
	b.ReportMetric(0, "ns/op")
}

// cpuTime is the user and system time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
