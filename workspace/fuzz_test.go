package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: for any string, Resolve does not panic; a success is an
// absolute, clean, symlink-free path inside the root (and not protected for
// Write) naming the file the kernel would reach; a failure is a
// *BoundaryError with a known code. "$WS" and "$BASE" in the input stand for
// the real paths of the workspace root and its parent, so the fuzzer can
// reach absolute paths in and around the temporary tree. inSub runs the
// resolution with the current directory in sub/.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"a.txt", ".", "..", "./", "../", "...", "sub/../a.txt", "sub/deep/../../..",
		"../ws/a.txt", "../ws2/file", "$WS2/file", "$WSx", "$WS", "$WS/", "$WS/a.txt",
		"$WS//sub///b.txt", "$WS/./sub/./b.txt", "//$WS/a.txt", "$BASE", "$BASE/outside/secret",
		"$BASE/wslink/a.txt", "$BASE/wslink/../outside", "/", "//", "/..", "/etc/passwd",
		"link_in/b.txt", "link_out/secret", "link_out/../ws/a.txt", "sub/esc/secret",
		"out_inner/../secret", "in_deep/../b.txt", "chain1/c.txt", "chain_out1/secret",
		"loop_a", "self/x", "dangling_in", "dangling_in/x/..", "dangling_out", "up_link",
		"up_link/ws/.git/config", "sub/uplink/uplink", "dot_link/dot_link/dot_link/a.txt",
		strings.Repeat("dot_link/", 41), "sibling_link/file", "proc_link/a.txt",
		"", "\x00", "a\x00b", strings.Repeat("x", 256), "missing/" + strings.Repeat("x", 256),
		strings.Repeat("a/", 2049), strings.Repeat("../", 100),
		"/proc/self/root$WS/a.txt", "/proc/self/cwd", "/proc/self/fd/0", "/dev/fd/0", "/dev/stdin",
		"/dev/null", "new.txt", "new/dir/file", "missing/../a.txt", "a.txt/x", "a.txt/..",
		"a.txt/x/..", ".git/config", ".git/hooks/pre-commit", "sub/.git/HEAD", ".GIT/config",
		".vtexec/policy.toml", "gitlink", "gitdirlink/config", "dangling_git", ".gitignore",
		".github/x", "sub/.vtexec/x", "b.txt", "../.git", "esc/../ws", "~", "$HOME", "*",
		"a.txt/", ".//.//..//ws", "\\..\\..", "sub/\n../a.txt",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}

	tr := buildTree(f)
	base, err := New(tr.root)
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, in string, inSub bool) {
		path := tr.expand(in)
		w := base.Clone()
		if inSub {
			if err := w.Chdir("sub"); err != nil {
				t.Fatal(err)
			}
		}
		cwd := w.Cwd()
		for _, access := range []Access{Read, Write} {
			got, err := w.Resolve(path, access)
			if w.Cwd() != cwd || w.Root() != tr.root {
				t.Fatalf("Resolve(%q) changed the workspace", path)
			}
			if err != nil {
				checkRefusal(t, w, path, got, err)
				continue
			}
			checkResult(t, w, path, access, got)
		}
	})
}

func checkRefusal(t *testing.T, w *Workspace, path, got string, err error) {
	t.Helper()
	var be *BoundaryError
	if !errors.As(err, &be) {
		t.Fatalf("Resolve(%q): error %T %v is not a *BoundaryError", path, err, err)
	}
	switch be.Code {
	case Outside, Protected, Invalid:
	default:
		t.Fatalf("Resolve(%q): unknown code %q", path, be.Code)
	}
	if got != "" {
		t.Fatalf("Resolve(%q): result %q alongside error %v", path, got, err)
	}
	if be.Path != path || be.Root != w.Root() || be.Reason == "" || be.Hint() == "" {
		t.Fatalf("Resolve(%q): incomplete error %+v", path, be)
	}
	if be.Code == Protected && !w.Contains(be.Resolved) {
		t.Fatalf("Resolve(%q): protected path %q is not inside", path, be.Resolved)
	}
	if be.Code == Outside && be.Resolved != "" && w.Contains(be.Resolved) {
		t.Fatalf("Resolve(%q): refused as outside, but %q is inside", path, be.Resolved)
	}
}

func checkResult(t *testing.T, w *Workspace, path string, access Access, got string) {
	t.Helper()
	if !filepath.IsAbs(got) {
		t.Fatalf("Resolve(%q) = %q: not absolute", path, got)
	}
	if filepath.Clean(got) != got {
		t.Fatalf("Resolve(%q) = %q: not clean", path, got)
	}
	if !w.Contains(got) {
		t.Fatalf("Resolve(%q) = %q: outside root %q", path, got, w.Root())
	}
	if strings.IndexByte(got, 0) >= 0 || len(got) > maxPathLen {
		t.Fatalf("Resolve(%q) = %q: NUL or too long", path, got)
	}
	for _, c := range strings.Split(got, "/") {
		if len(c) > maxNameLen || c == "." || c == ".." {
			t.Fatalf("Resolve(%q) = %q: bad component %q", path, got, c)
		}
	}
	if access == Write && protectedOracle(w.Root(), got) {
		t.Fatalf("Resolve(%q, Write) = %q: protected path allowed", path, got)
	}

	// If the result exists it must be its own real path, and if the
	// kernel can reach the path as given it must be the same file.
	rfi, rerr := os.Stat(got)
	if rerr == nil {
		if real, err := filepath.EvalSymlinks(got); err == nil && real != got {
			t.Fatalf("Resolve(%q) = %q: not symlink-free, really %q", path, got, real)
		}
	}
	raw := path
	if !filepath.IsAbs(raw) {
		raw = w.Cwd() + "/" + raw
	}
	kfi, kerr := os.Stat(raw)
	if kerr != nil {
		return
	}
	if rerr != nil {
		t.Fatalf("Resolve(%q) = %q, which does not exist, but the kernel finds %q", path, got, raw)
	}
	if !os.SameFile(kfi, rfi) {
		t.Fatalf("Resolve(%q) = %q, but the kernel opens a different file", path, got)
	}
}

// protectedOracle is an independent statement of the protection rule: a
// .git component anywhere below the root, or .vtexec directly under it,
// compared case-insensitively.
func protectedOracle(root, real string) bool {
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == "." {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if strings.ToLower(parts[0]) == ".vtexec" {
		return true
	}
	for _, p := range parts {
		if strings.ToLower(p) == ".git" {
			return true
		}
	}
	return false
}
