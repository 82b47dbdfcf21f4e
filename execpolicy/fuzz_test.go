package execpolicy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vtexec/vtexec/workspace"
)

// FuzzCheck: any input yields a verdict without panicking; an allowed plan
// has only absolute programs outside the workspace, absolute dirs inside
// it, redirect targets (its groups' too) inside it or /dev/null, and
// groups whose steps are contiguous and inside their parents.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"ls -la", "cat a.txt | wc -l", "echo $(id)", "bash -c 'ls && cat ../x'",
		"cd sub && cat ../a.txt > out", "find . -name '*.go' -exec id \\;",
		"sed -n 1p a.txt", "rg --pre cat x", "ls {a,b}/*", "cat <<EOF\nx\nEOF",
		"ls > /dev/null 2>&1", "cp a.txt sub/", "echo ~", "x=1 ls", "ls &",
		"if true; then ls; elif false; then (cd sub; ls); else { ls; } > out; fi",
		"for f in *; do if ! test -f $f; then echo $f; fi; done > list", "(cd sub && { ls; }) 2>&1",
		"echo \"$(cat <<'EOF'\nx $y\nEOF\n)\"",
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
		for id, g := range v.Plan.Groups {
			if g.Parent < 0 || g.Parent > id {
				t.Fatalf("group %d has parent %d for %q", id+1, g.Parent, src)
			}
			for _, r := range g.Redirects {
				if r.Fd == 0 || (r.Path != "" && r.Path != "/dev/null" && !ws.Contains(r.Path)) {
					t.Fatalf("allowed group redirect %+v for %q", r, src)
				}
			}
		}
		done := map[int]bool{} // groups whose steps have ended
		var prev []int
		for _, st := range v.Plan.Steps {
			chain := v.Plan.Chain(st.Group)
			for _, id := range prev {
				if !slices.Contains(chain, id) {
					done[id] = true
				}
			}
			for _, id := range chain {
				if done[id] {
					t.Fatalf("group %d is not contiguous for %q", id, src)
				}
			}
			prev = chain
		}
	})
}
