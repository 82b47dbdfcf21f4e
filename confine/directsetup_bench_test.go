//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDirectSetup times the plan of a direct start's calls for a
// workspace like a run's: a git repository with the usual protected
// names (mostly missing), a run's directory under /dev/shm, a cache.
func BenchmarkDirectSetup(b *testing.B) {
	ws := b.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	run, err := os.MkdirTemp(PrivateShm, "vtexec-bench-run-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(run)
	spec := Spec{ReadWrite: []string{ws, run, b.TempDir()}, GitDirs: []string{filepath.Join(ws, ".git")},
		Limits: Limits{FileSize: 8 << 30, OpenFiles: 4096, Processes: 2048, Memory: 8 << 30}}
	for _, name := range []string{".vtexec", ".claude", ".codex", ".gemini", ".cursor", ".vscode", ".idea"} {
		spec.Protected = append(spec.Protected, Protected{Path: filepath.Join(ws, name), Dir: true})
	}
	for _, name := range []string{".mcp.json", ".envrc", ".gitattributes"} {
		spec.Protected = append(spec.Protected, Protected{Path: filepath.Join(ws, name)})
	}
	hs := helperSpec{Spec: spec, ABI: landlockABI()}
	for b.Loop() {
		_, _, done, err := directSetup(hs)
		if err != nil {
			b.Fatal(err)
		}
		done()
	}
}
