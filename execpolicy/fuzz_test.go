package execpolicy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vtexec/vtexec/workspace"
)

// FuzzCheck: any input yields a verdict without panicking; an allowed plan
// has only absolute programs outside the workspace, absolute dirs inside
// it, and redirect targets inside it or /dev/null.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"ls -la", "cat a.txt | wc -l", "echo $(id)", "bash -c 'ls && cat ../x'",
		"cd sub && cat ../a.txt > out", "find . -name '*.go' -exec id \\;",
		"sed -n 1p a.txt", "rg --pre cat x", "ls {a,b}/*", "cat <<EOF\nx\nEOF",
		"ls > /dev/null 2>&1", "cp a.txt sub/", "echo ~", "x=1 ls", "ls &",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.Symlink("/etc", filepath.Join(dir, "out-link"))
	ws, err := workspace.New(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		v := Check(src, ws)
		if v == nil {
			t.Fatal("nil verdict")
		}
		if v.Decision != Allow {
			if v.Code == "" || v.Reason == "" {
				t.Fatalf("refusal without code or reason: %+v", v)
			}
			return
		}
		for _, c := range v.Plan.Commands() {
			if len(c.Argv) == 0 {
				t.Fatalf("allowed empty argv for %q", src)
			}
			if c.Builtin == "" && (!filepath.IsAbs(c.Program) || ws.Contains(c.Program)) {
				t.Fatalf("allowed untrusted program %q for %q", c.Program, src)
			}
			if !ws.Contains(c.Dir) {
				t.Fatalf("allowed dir %q outside for %q", c.Dir, src)
			}
			for _, r := range c.Redirects {
				if r.Path != "" && r.Path != "/dev/null" && !ws.Contains(r.Path) {
					t.Fatalf("allowed redirect to %q for %q", r.Path, src)
				}
			}
		}
	})
}
