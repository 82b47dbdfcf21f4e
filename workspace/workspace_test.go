package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree is a real directory layout used by the tests:
//
//	base/                   real path of a fresh temp dir
//	  ws/                   the workspace root
//	    a.txt
//	    .gitignore
//	    .github/
//	    .git/config, .git/hooks/pre-commit
//	    .vtexec/policy.toml
//	    sub/b.txt, sub/deep/c.txt, sub/.git/HEAD
//	    sub/uplink -> ..                       (inside: ws)
//	    sub/esc -> ../../outside               (escapes with ../..)
//	    link_in -> sub                         (relative, inside)
//	    link_in_abs -> base/ws/sub/b.txt       (absolute, inside)
//	    in_deep -> sub/deep                    (for link/.. semantics)
//	    link_out -> base/outside               (absolute, outside)
//	    link_out_rel -> ../outside             (relative, outside)
//	    out_inner -> ../outside/inner          (lexically "out_inner/.." is ws)
//	    chain1 -> chain2 -> chain3 -> sub/deep
//	    chain_out1 -> chain_out2 -> base/outside
//	    loop_a -> loop_b -> loop_a, self -> self
//	    dangling_in -> missing_target
//	    dangling_out -> base/outside/missing
//	    dangling_git -> .git/not-yet
//	    gitlink -> .git/config, gitdirlink -> .git
//	    file_link -> a.txt
//	    dot_link -> .
//	    up_link -> ..                          (outside: base)
//	    sibling_link -> ../ws2
//	    proc_link -> /proc/self/root/base/ws   (inside, but through /proc)
//	  ws2/file                                 sibling sharing the "ws" prefix
//	  outside/secret, outside/inner/
//	  wslink -> ws                             symlink to the root
//	  filelink -> ws/a.txt
type tree struct {
	base string
	root string
}

func (tr tree) ws(rel string) string {
	if rel == "" {
		return tr.root
	}
	return tr.root + "/" + rel
}

func (tr tree) at(rel string) string { return tr.base + "/" + rel }

// expand replaces $WS and $BASE with the real paths of the tree.
func (tr tree) expand(s string) string {
	s = strings.ReplaceAll(s, "$WS", tr.root)
	return strings.ReplaceAll(s, "$BASE", tr.base)
}

func buildTree(tb testing.TB) tree {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tr := tree{base: base, root: filepath.Join(base, "ws")}
	dirs := []string{
		"ws/sub/deep", "ws/sub/.git", "ws/.git/hooks", "ws/.vtexec", "ws/.github",
		"ws2", "outside/inner",
	}
	for _, d := range dirs {
		if err := os.MkdirAll(tr.at(d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	files := []string{
		"ws/a.txt", "ws/.gitignore", "ws/.git/config", "ws/.git/hooks/pre-commit",
		"ws/.vtexec/policy.toml", "ws/sub/b.txt", "ws/sub/deep/c.txt", "ws/sub/.git/HEAD",
		"ws2/file", "outside/secret",
	}
	for _, f := range files {
		if err := os.WriteFile(tr.at(f), []byte(f+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	links := [][2]string{ // link path (under base), target
		{"ws/sub/uplink", ".."},
		{"ws/sub/esc", "../../outside"},
		{"ws/link_in", "sub"},
		{"ws/link_in_abs", tr.ws("sub/b.txt")},
		{"ws/in_deep", "sub/deep"},
		{"ws/link_out", tr.at("outside")},
		{"ws/link_out_rel", "../outside"},
		{"ws/out_inner", "../outside/inner"},
		{"ws/chain1", "chain2"},
		{"ws/chain2", "./chain3"},
		{"ws/chain3", tr.ws("sub/deep")},
		{"ws/chain_out1", "chain_out2"},
		{"ws/chain_out2", tr.at("outside")},
		{"ws/loop_a", "loop_b"},
		{"ws/loop_b", "loop_a"},
		{"ws/self", "self"},
		{"ws/dangling_in", "missing_target"},
		{"ws/dangling_out", tr.at("outside/missing")},
		{"ws/dangling_git", ".git/not-yet"},
		{"ws/gitlink", ".git/config"},
		{"ws/gitdirlink", ".git"},
		{"ws/file_link", "a.txt"},
		{"ws/dot_link", "."},
		{"ws/up_link", ".."},
		{"ws/sibling_link", "../ws2"},
		{"ws/proc_link", "/proc/self/root" + tr.root},
		{"wslink", "ws"},
		{"filelink", "ws/a.txt"},
	}
	for _, l := range links {
		if err := os.Symlink(l[1], tr.at(l[0])); err != nil {
			tb.Fatal(err)
		}
	}
	return tr
}

// check describes one Resolve expectation. Paths use $WS and $BASE.
type check struct {
	name     string
	path     string
	access   Access
	want     string // expected result when code is ""
	code     Code   // expected error code, "" for success
	resolved string // expected BoundaryError.Resolved, checked when non-empty
}

// runChecks resolves each case against w and checks the result or error.
func runChecks(t *testing.T, tr tree, w *Workspace, cases []check) {
	t.Helper()
	for _, tc := range cases {
		name := tc.name
		if tc.access == Write {
			name += "/write"
		} else {
			name += "/read"
		}
		t.Run(name, func(t *testing.T) {
			path := tr.expand(tc.path)
			cwd := w.Cwd()
			got, err := w.Resolve(path, tc.access)
			assert.Equal(t, cwd, w.Cwd(), "Resolve must not move the current directory")
			if tc.code == "" {
				require.NoError(t, err, "path %q", path)
				assert.Equal(t, tr.expand(tc.want), got)
				assert.True(t, w.Contains(got), "result %q not contained", got)
				assert.True(t, filepath.IsAbs(got))
				assert.Equal(t, filepath.Clean(got), got)
				return
			}
			require.Error(t, err, "path %q resolved to %q", path, got)
			assert.Empty(t, got, "a refused path must not return a result")
			var be *BoundaryError
			require.True(t, errors.As(err, &be), "error %T is not *BoundaryError", err)
			assert.Equal(t, tc.code, be.Code, "reason: %s", be.Reason)
			assert.Equal(t, path, be.Path)
			assert.Equal(t, w.Root(), be.Root)
			assert.NotEmpty(t, be.Reason)
			assert.NotEmpty(t, be.Hint())
			assert.NotEmpty(t, be.Error())
			if tc.resolved != "" {
				assert.Equal(t, tr.expand(tc.resolved), be.Resolved)
			}
		})
	}
}

// both returns the case once for Read and once for Write.
func both(c check) []check {
	r, w := c, c
	r.access, w.access = Read, Write
	return []check{r, w}
}

func TestResolve(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)
	require.Equal(t, tr.root, w.Root())

	long := strings.Repeat("n", 300)
	var cases []check
	add := func(cs ...check) {
		for _, c := range cs {
			cases = append(cases, both(c)...)
		}
	}

	// Relative paths and "..".
	add(
		check{name: "plain file", path: "a.txt", want: "$WS/a.txt"},
		check{name: "dot slash", path: "./a.txt", want: "$WS/a.txt"},
		check{name: "dot", path: ".", want: "$WS"},
		check{name: "dot slash only", path: "./", want: "$WS"},
		check{name: "nested", path: "sub/deep/c.txt", want: "$WS/sub/deep/c.txt"},
		check{name: "trailing slash dir", path: "sub/", want: "$WS/sub"},
		check{name: "dotdot stays in", path: "sub/../a.txt", want: "$WS/a.txt"},
		check{name: "dotdot chain stays in", path: "sub/deep/../../sub/deep/../b.txt", want: "$WS/sub/b.txt"},
		check{name: "dotdot back to root", path: "sub/deep/../..", want: "$WS"},
		check{name: "out and back in", path: "../ws/a.txt", want: "$WS/a.txt"},
		check{name: "dotdot escapes", path: "..", code: Outside, resolved: "$BASE"},
		check{name: "dotdot escapes to sibling", path: "../outside/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "dotdot chain escapes", path: "sub/deep/../../../outside/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "dotdot many", path: strings.Repeat("../", 64) + "etc/passwd", code: Outside, resolved: "/etc/passwd"},
		check{name: "dotdot escapes then missing", path: "../no-such-dir/x", code: Outside, resolved: "$BASE/no-such-dir/x"},
	)

	// Absolute paths, "//" and "/./".
	add(
		check{name: "abs inside", path: "$WS/a.txt", want: "$WS/a.txt"},
		check{name: "abs root", path: "$WS", want: "$WS"},
		check{name: "abs root trailing slash", path: "$WS/", want: "$WS"},
		check{name: "abs double slash", path: "$WS//sub///b.txt", want: "$WS/sub/b.txt"},
		check{name: "abs leading double slash", path: "/" + "$WS/a.txt", want: "$WS/a.txt"},
		check{name: "abs slash dot slash", path: "$WS/./sub/./b.txt", want: "$WS/sub/b.txt"},
		check{name: "rel double slash", path: "sub//deep/./c.txt", want: "$WS/sub/deep/c.txt"},
		check{name: "abs dotdot escapes", path: "$WS/sub/../../outside/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "abs outside", path: "$BASE/outside/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "abs parent", path: "$BASE", code: Outside, resolved: "$BASE"},
		check{name: "etc passwd", path: "/etc/passwd", code: Outside, resolved: "/etc/passwd"},
		check{name: "slash", path: "/", code: Outside, resolved: "/"},
		check{name: "double slash", path: "//", code: Outside, resolved: "/"},
		check{name: "slash dotdot", path: "/..", code: Outside, resolved: "/"},
	)

	// A sibling whose name starts with the root's name.
	add(
		check{name: "sibling dir", path: "$BASE/ws2", code: Outside, resolved: "$BASE/ws2"},
		check{name: "sibling file", path: "$WS" + "2/file", code: Outside, resolved: "$BASE/ws2/file"},
		check{name: "sibling relative", path: "../ws2/file", code: Outside, resolved: "$BASE/ws2/file"},
		check{name: "sibling missing", path: "$WS" + "2/new", code: Outside, resolved: "$BASE/ws2/new"},
		check{name: "sibling via link", path: "sibling_link/file", code: Outside, resolved: "$BASE/ws2/file"},
		check{name: "prefix not component", path: "$WS" + "x", code: Outside, resolved: "$BASE/wsx"},
	)

	// Symlinks.
	add(
		check{name: "link inside", path: "link_in/b.txt", want: "$WS/sub/b.txt"},
		check{name: "link inside itself", path: "link_in", want: "$WS/sub"},
		check{name: "abs link inside", path: "link_in_abs", want: "$WS/sub/b.txt"},
		check{name: "link to file", path: "file_link", want: "$WS/a.txt"},
		check{name: "chain inside", path: "chain1/c.txt", want: "$WS/sub/deep/c.txt"},
		check{name: "link then dotdot follows target", path: "in_deep/../b.txt", want: "$WS/sub/b.txt"},
		check{name: "link dotdot inside", path: "sub/uplink/a.txt", want: "$WS/a.txt"},
		check{name: "dot link repeated", path: strings.Repeat("dot_link/", 10) + "a.txt", want: "$WS/a.txt"},
		check{name: "link out", path: "link_out", code: Outside, resolved: "$BASE/outside"},
		check{name: "link out file", path: "link_out/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "link out missing", path: "link_out/new", code: Outside, resolved: "$BASE/outside/new"},
		check{name: "link out then dotdot back in", path: "link_out/../ws/a.txt", want: "$WS/a.txt"},
		check{name: "relative link out", path: "link_out_rel/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "relative link escapes with dotdot dotdot", path: "sub/esc/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "relative link escapes itself", path: "sub/esc", code: Outside, resolved: "$BASE/outside"},
		// Lexically out_inner/../secret is $WS/secret; the kernel goes to outside/secret.
		check{name: "link then dotdot is not lexical", path: "out_inner/../secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "chain out", path: "chain_out1/secret", code: Outside, resolved: "$BASE/outside/secret"},
		check{name: "up link", path: "up_link", code: Outside, resolved: "$BASE"},
		check{name: "up link back in", path: "up_link/ws/a.txt", want: "$WS/a.txt"},
		check{name: "up link via sub", path: "sub/uplink/up_link/outside", code: Outside, resolved: "$BASE/outside"},
		check{name: "loop", path: "loop_a", code: Invalid},
		check{name: "loop below", path: "loop_b/x", code: Invalid},
		check{name: "self loop", path: "self", code: Invalid},
		check{name: "self loop abs", path: "$WS/self/x/y", code: Invalid},
		check{name: "too many hops", path: strings.Repeat("dot_link/", maxSymlinkHops+1) + "a.txt", code: Invalid},
		check{name: "dangling inside", path: "dangling_in", want: "$WS/missing_target"},
		check{name: "dangling inside below", path: "dangling_in/x", want: "$WS/missing_target/x"},
		check{name: "dangling inside dotdot", path: "dangling_in/../a.txt", code: Invalid},
		check{name: "dangling outside", path: "dangling_out", code: Outside, resolved: "$BASE/outside/missing"},
		check{name: "dangling outside below", path: "dangling_out/x", code: Outside, resolved: "$BASE/outside/missing/x"},
	)

	// Refused: NUL, empty, long, /proc and its aliases.
	add(
		check{name: "empty", path: "", code: Invalid},
		check{name: "nul only", path: "\x00", code: Invalid},
		check{name: "nul suffix", path: "a.txt\x00", code: Invalid},
		check{name: "nul middle", path: "sub/\x00/../a.txt", code: Invalid},
		check{name: "nul after abs", path: "$WS/a.txt\x00../../etc", code: Invalid},
		check{name: "nul below missing dir", path: "missing/a\x00b", code: Invalid},
		check{name: "nul below dangling link", path: "dangling_in/\x00", code: Invalid},
		check{name: "longer than PATH_MAX", path: strings.Repeat("a/", maxPathLen/2+1), code: Invalid},
		check{name: "longer than PATH_MAX of dots", path: strings.Repeat("./", maxPathLen/2) + "a.txt", code: Invalid},
		check{name: "component longer than NAME_MAX", path: long, code: Invalid},
		check{name: "component longer than NAME_MAX below dir", path: "sub/" + long, code: Invalid},
		check{name: "component longer than NAME_MAX below missing dir", path: "missing/" + long, code: Invalid},
		check{name: "component longer than NAME_MAX below dangling link", path: "dangling_in/" + long, code: Invalid},
		check{name: "component longer than NAME_MAX below a file", path: "a.txt/" + long, code: Invalid},
		check{name: "component longer than NAME_MAX below a file, then dot", path: "a.txt/" + long + "/.", code: Invalid},
		check{name: "proc self root", path: "/proc/self/root$WS/a.txt", code: Outside},
		check{name: "proc self root only", path: "/proc/self/root", code: Outside},
		check{name: "proc self cwd", path: "/proc/self/cwd", code: Outside},
		check{name: "proc self cwd file", path: "/proc/self/cwd/a.txt", code: Outside},
		check{name: "proc", path: "/proc", code: Outside},
		check{name: "proc self fd", path: "/proc/self/fd/0", code: Outside},
		check{name: "proc thread self", path: "/proc/thread-self/root$WS", code: Outside},
		check{name: "proc via dotdot", path: "$WS/../../../../../../proc/self/root$WS", code: Outside},
		check{name: "proc double slash", path: "//proc//self//root$WS", code: Outside},
		check{name: "dev fd 0", path: "/dev/fd/0", code: Outside},
		check{name: "dev fd", path: "/dev/fd", code: Outside},
		check{name: "dev stdin", path: "/dev/stdin", code: Outside},
		check{name: "dev stdout", path: "/dev/stdout", code: Outside},
		check{name: "link inside via proc", path: "proc_link/a.txt", code: Outside},
		check{name: "dev null", path: "/dev/null", code: Outside, resolved: "/dev/null"},
	)

	// Paths that do not exist yet, and paths through a regular file.
	add(
		check{name: "missing file", path: "new.txt", want: "$WS/new.txt"},
		check{name: "missing dirs", path: "newdir/a/b.txt", want: "$WS/newdir/a/b.txt"},
		check{name: "missing with dots", path: "newdir/./a//b.txt", want: "$WS/newdir/a/b.txt"},
		check{name: "missing abs", path: "$WS/sub/new", want: "$WS/sub/new"},
		check{name: "missing then dotdot", path: "missing/../a.txt", code: Invalid},
		check{name: "missing then dotdot only", path: "missing/..", code: Invalid},
		check{name: "missing then dotdot escape", path: "missing/../../outside/secret", code: Invalid},
		check{name: "missing deep then dotdot", path: "sub/new/x/../..", code: Invalid},
		// The kernel would say ENOTDIR; Resolve joins the rest lexically,
		// which stays inside the root.
		check{name: "through regular file", path: "a.txt/x", want: "$WS/a.txt/x"},
		check{name: "through link to file", path: "file_link/x", want: "$WS/a.txt/x"},
		check{name: "through regular file then dotdot", path: "a.txt/x/..", code: Invalid},
		check{name: "through regular file then escape", path: "a.txt/x/../../../outside/secret", code: Invalid},
	)

	// Protected paths: refused for Write, allowed for Read.
	for _, p := range []struct{ name, path, want string }{
		{"git config", ".git/config", "$WS/.git/config"},
		{"git hook", ".git/hooks/pre-commit", "$WS/.git/hooks/pre-commit"},
		{"git dir", ".git", "$WS/.git"},
		{"git dir trailing slash", ".git/", "$WS/.git"},
		{"git new file", ".git/hooks/post-checkout", "$WS/.git/hooks/post-checkout"},
		{"nested git", "sub/.git/HEAD", "$WS/sub/.git/HEAD"},
		{"nested missing git", "newdir/.git/config", "$WS/newdir/.git/config"},
		{"git upper case", ".GIT/config", "$WS/.GIT/config"},
		{"vtexec policy", ".vtexec/policy.toml", "$WS/.vtexec/policy.toml"},
		{"vtexec dir", ".vtexec", "$WS/.vtexec"},
		{"vtexec upper case", ".VTEXEC/policy.toml", "$WS/.VTEXEC/policy.toml"},
		{"git via dotdot", "sub/../.git/config", "$WS/.git/config"},
		{"git abs", "$WS/.git/config", "$WS/.git/config"},
		{"git abs double slash", "$WS//.git//config", "$WS/.git/config"},
		{"link to git config", "gitlink", "$WS/.git/config"},
		{"link to git dir", "gitdirlink/config", "$WS/.git/config"},
		{"link to git hooks", "gitdirlink/hooks/pre-commit", "$WS/.git/hooks/pre-commit"},
		{"dangling link into git", "dangling_git", "$WS/.git/not-yet"},
		{"nested git via link", "link_in/.git/HEAD", "$WS/sub/.git/HEAD"},
		{"git via up link", "up_link/ws/.git/config", "$WS/.git/config"},
		{"git via sub uplink", "sub/uplink/.git/config", "$WS/.git/config"},
	} {
		cases = append(cases,
			check{name: "protected " + p.name, path: p.path, access: Read, want: p.want},
			check{name: "protected " + p.name, path: p.path, access: Write, code: Protected, resolved: p.want},
		)
	}

	// Near misses that are ordinary, writable files.
	add(
		check{name: "gitignore", path: ".gitignore", want: "$WS/.gitignore"},
		check{name: "github dir", path: ".github/x", want: "$WS/.github/x"},
		check{name: "git prefix", path: ".git-foo/config", want: "$WS/.git-foo/config"},
		check{name: "git suffix", path: "x.git/config", want: "$WS/x.git/config"},
		check{name: "git bak", path: ".git.bak/config", want: "$WS/.git.bak/config"},
		check{name: "vtexec below root", path: "sub/.vtexec/policy.toml", want: "$WS/sub/.vtexec/policy.toml"},
		check{name: "vtexec dir below root", path: "sub/.vtexec", want: "$WS/sub/.vtexec"},
		check{name: "vtexecrc", path: ".vtexecrc", want: "$WS/.vtexecrc"},
		check{name: "root itself", path: ".", want: "$WS"},
	)

	// Outside wins over protected.
	cases = append(cases,
		check{name: "outside git", path: "$BASE/outside/.git/config", access: Write, code: Outside},
		check{name: "sibling git", path: "../ws2/.git/config", access: Write, code: Outside},
	)

	runChecks(t, tr, w, cases)
}

// TestResolveErrorFields pins the fields of BoundaryError for one case per
// code, through errors.As on a wrapped error.
func TestResolveErrorFields(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)

	for _, tc := range []struct {
		path     string
		access   Access
		code     Code
		resolved string
	}{
		{"link_out/secret", Read, Outside, tr.at("outside/secret")},
		{"gitlink", Write, Protected, tr.ws(".git/config")},
		{"missing/../a.txt", Read, Invalid, tr.ws("missing")},
		{"", Read, Invalid, ""},
	} {
		t.Run(string(tc.code)+"/"+tc.path, func(t *testing.T) {
			_, err := w.Resolve(tc.path, tc.access)
			require.Error(t, err)
			wrapped := fmt.Errorf("tool: %w", err)
			var be *BoundaryError
			require.True(t, errors.As(wrapped, &be))
			assert.Equal(t, tc.code, be.Code)
			assert.Equal(t, tc.path, be.Path)
			assert.Equal(t, tc.resolved, be.Resolved)
			assert.Equal(t, tr.root, be.Root)
			assert.NotEmpty(t, be.Hint())
			assert.Contains(t, be.Error(), fmt.Sprintf("%q", tc.path))
			if tc.resolved != "" {
				assert.Contains(t, be.Error(), tc.resolved)
			}
		})
	}
}

func TestHint(t *testing.T) {
	seen := map[string]Code{}
	for _, c := range []Code{Outside, Protected, Invalid} {
		h := (&BoundaryError{Code: c}).Hint()
		assert.NotEmpty(t, h, "code %s", c)
		if prev, ok := seen[h]; ok {
			t.Errorf("codes %s and %s share hint %q", prev, c, h)
		}
		seen[h] = c
	}
	assert.Equal(t, "outside_workspace", string(Outside))
	assert.Equal(t, "protected_path", string(Protected))
	assert.Equal(t, "bad_path", string(Invalid))
}

func TestBoundaryErrorMessage(t *testing.T) {
	e := &BoundaryError{Code: Outside, Path: "x", Resolved: "/y", Reason: "r"}
	assert.Equal(t, `"x" resolves to "/y": r`, e.Error())
	e = &BoundaryError{Code: Invalid, Path: "x", Reason: "r"}
	assert.Equal(t, `"x": r`, e.Error())
	e = &BoundaryError{Code: Invalid, Path: "/y", Resolved: "/y", Reason: "r"}
	assert.Equal(t, `"/y": r`, e.Error())
}

// TestSymlinkedRoot makes the workspace through a symlink to the real
// directory: the root is the real path and both spellings work.
func TestSymlinkedRoot(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.at("wslink"))
	require.NoError(t, err)
	assert.Equal(t, tr.root, w.Root())
	assert.Equal(t, tr.root, w.Cwd())

	runChecks(t, tr, w, []check{
		{name: "relative", path: "a.txt", want: "$WS/a.txt"},
		{name: "via link spelling", path: "$BASE/wslink/a.txt", want: "$WS/a.txt"},
		{name: "via link spelling root", path: "$BASE/wslink", want: "$WS"},
		{name: "via link spelling missing", path: "$BASE/wslink/new/file", access: Write, want: "$WS/new/file"},
		{name: "via real spelling", path: "$WS/sub/b.txt", want: "$WS/sub/b.txt"},
		{name: "via link spelling escapes", path: "$BASE/wslink/../outside/secret", code: Outside, resolved: "$BASE/outside/secret"},
		{name: "link itself with trailing dotdot", path: "$BASE/wslink/..", code: Outside, resolved: "$BASE"},
		{name: "via link spelling protected", path: "$BASE/wslink/.git/config", access: Write, code: Protected, resolved: "$WS/.git/config"},
		{name: "via link spelling protected read", path: "$BASE/wslink/.git/config", want: "$WS/.git/config"},
		{name: "via link spelling link out", path: "$BASE/wslink/link_out/secret", code: Outside, resolved: "$BASE/outside/secret"},
	})
	assert.True(t, w.Contains(tr.ws("a.txt")))
	assert.False(t, w.Contains(tr.at("outside")))
	require.NoError(t, w.Chdir(tr.at("wslink/sub")))
	assert.Equal(t, tr.ws("sub"), w.Cwd())
}

// TestRootBehindSymlinkedParent: the root's parent directory is reached
// through a symlink.
func TestRootBehindSymlinkedParent(t *testing.T) {
	tr := buildTree(t)
	require.NoError(t, os.Symlink(tr.base, tr.at("ws/../baselink")))
	w, err := New(tr.at("baselink/ws/sub/.."))
	require.NoError(t, err)
	assert.Equal(t, tr.root, w.Root())
	got, err := w.Resolve(tr.at("baselink/ws/a.txt"), Read)
	require.NoError(t, err)
	assert.Equal(t, tr.ws("a.txt"), got)
	_, err = w.Resolve(tr.at("baselink/ws2/file"), Read)
	assertCode(t, err, Outside)
}

func assertCode(t *testing.T, err error, code Code) {
	t.Helper()
	var be *BoundaryError
	if assert.True(t, errors.As(err, &be), "want *BoundaryError with %s, got %v", code, err) {
		assert.Equal(t, code, be.Code, "reason: %s", be.Reason)
		assert.NotEmpty(t, be.Hint())
	}
}

func TestChdir(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)

	require.NoError(t, w.Chdir("sub"))
	assert.Equal(t, tr.ws("sub"), w.Cwd())
	assert.Equal(t, tr.root, w.Root())

	runChecks(t, tr, w, []check{
		{name: "cwd file", path: "b.txt", want: "$WS/sub/b.txt"},
		{name: "cwd dot", path: ".", want: "$WS/sub"},
		{name: "dotdot to root", path: "..", want: "$WS"},
		{name: "dotdot file", path: "../a.txt", want: "$WS/a.txt"},
		{name: "dotdot git", path: "../.git/config", access: Write, code: Protected},
		{name: "own git", path: ".git/HEAD", access: Write, code: Protected},
		{name: "dotdot dotdot", path: "../..", code: Outside, resolved: "$BASE"},
		{name: "dotdot escape", path: "../../outside/secret", code: Outside, resolved: "$BASE/outside/secret"},
		{name: "abs ignores cwd", path: "$WS/a.txt", want: "$WS/a.txt"},
		{name: "missing below cwd", path: "new/x", want: "$WS/sub/new/x"},
		{name: "esc link from cwd", path: "esc/secret", code: Outside},
		{name: "uplink from cwd", path: "uplink/a.txt", want: "$WS/a.txt"},
	})

	require.NoError(t, w.Chdir("deep"))
	assert.Equal(t, tr.ws("sub/deep"), w.Cwd())
	require.NoError(t, w.Chdir("../.."))
	assert.Equal(t, tr.root, w.Cwd())

	// Through a link the cwd becomes the real directory, and ".." is taken
	// from there, not lexically.
	require.NoError(t, w.Chdir("in_deep"))
	assert.Equal(t, tr.ws("sub/deep"), w.Cwd())
	got, err := w.Resolve("../b.txt", Read)
	require.NoError(t, err)
	assert.Equal(t, tr.ws("sub/b.txt"), got)
	require.NoError(t, w.Chdir(tr.root))
	assert.Equal(t, tr.root, w.Cwd())

	// Allowed: chdir into protected dirs is a read.
	require.NoError(t, w.Chdir(".git"))
	assert.Equal(t, tr.ws(".git"), w.Cwd())
	require.NoError(t, w.Chdir(".."))

	require.NoError(t, w.Chdir("sub/uplink"))
	assert.Equal(t, tr.root, w.Cwd())
}

func TestChdirRefused(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)
	require.NoError(t, w.Chdir("sub"))

	for _, tc := range []struct {
		path string
		code Code
	}{
		{"/", Outside},
		{"../..", Outside},
		{"$BASE/outside", Outside},
		{"$BASE/ws2", Outside},
		{"esc", Outside},
		{"../link_out", Outside},
		{"../up_link", Outside},
		{"/proc/self/cwd", Outside},
		{"/proc/self/root$WS", Outside},
		{"b.txt", Invalid},
		{"../file_link", Invalid},
		{"missing", Invalid},
		{"../dangling_in", Invalid},
		{"../loop_a", Invalid},
		{"", Invalid},
		{"deep\x00", Invalid},
		{"missing/..", Invalid},
	} {
		t.Run(tc.path, func(t *testing.T) {
			err := w.Chdir(tr.expand(tc.path))
			require.Error(t, err)
			assertCode(t, err, tc.code)
			assert.Equal(t, tr.ws("sub"), w.Cwd(), "cwd must not change on error")
		})
	}

	// From the root itself, ".." and "/" are refused and the cwd stays.
	require.NoError(t, w.Chdir(".."))
	require.Equal(t, tr.root, w.Cwd())
	for _, p := range []string{"..", "/", "./..", "sub/../.."} {
		err := w.Chdir(p)
		assertCode(t, err, Outside)
		assert.Equal(t, tr.root, w.Cwd(), "chdir %q", p)
	}
}

// TestCwdReplacedBySymlink: Resolve walks from "/" every time, so a cwd
// that is swapped for a symlink to outside after Chdir does not leak.
func TestCwdReplacedBySymlink(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(tr.ws("moving"), 0o755))
	require.NoError(t, w.Chdir("moving"))

	require.NoError(t, os.Remove(tr.ws("moving")))
	require.NoError(t, os.Symlink(tr.at("outside"), tr.ws("moving")))

	_, err = w.Resolve("secret", Read)
	assertCode(t, err, Outside)
	_, err = w.Resolve(".", Write)
	assertCode(t, err, Outside)
	// ".." is taken from the link's target, as the kernel would.
	_, err = w.Resolve("..", Read)
	assertCode(t, err, Outside)
	_, err = w.Resolve("../ws/a.txt", Read)
	require.NoError(t, err)
}

// TestLongResolvedPath: a short relative path joined to a deep cwd may
// exceed PATH_MAX; that must be refused whether or not it exists.
func TestLongResolvedPath(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)

	comp := strings.Repeat("d", 200)
	deep := tr.root
	for len(deep) < maxPathLen-2*len(comp) {
		deep += "/" + comp
	}
	require.NoError(t, os.MkdirAll(deep, 0o755))
	require.NoError(t, w.Chdir(w.Rel(deep)))
	require.Equal(t, deep, w.Cwd())

	rel := strings.Repeat("e", 200) + "/" + strings.Repeat("f", 200) + "/" + strings.Repeat("g", 200)
	require.LessOrEqual(t, len(rel), maxPathLen)
	for _, access := range []Access{Read, Write} {
		got, err := w.Resolve(rel, access)
		require.Error(t, err, "resolved to a %d-byte path", len(got))
		assertCode(t, err, Invalid)
	}

	// Going back up from the deep cwd is fine.
	got, err := w.Resolve(strings.Repeat("../", strings.Count(w.Rel(deep), "/")+1)+"a.txt", Read)
	require.NoError(t, err)
	assert.Equal(t, tr.ws("a.txt"), got)
}

func TestNew(t *testing.T) {
	tr := buildTree(t)
	require.NoError(t, os.Symlink("/", tr.at("rootlink")))

	for _, tc := range []struct {
		name string
		dir  string
	}{
		{"empty", ""},
		{"slash", "/"},
		{"slash dotdot", "/.."},
		{"double slash", "//"},
		{"dotdot to slash", tr.base + strings.Repeat("/..", strings.Count(tr.base, "/")+1)},
		{"link to slash", tr.at("rootlink")},
		{"file", tr.ws("a.txt")},
		{"link to file", tr.at("filelink")},
		{"missing", tr.ws("missing")},
		{"dangling link", tr.ws("dangling_in")},
		{"loop", tr.ws("loop_a")},
		{"through file", tr.ws("a.txt/x")},
		{"nul", tr.root + "\x00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(tc.dir)
			require.Error(t, err)
			assert.Nil(t, w)
		})
	}

	w, err := New(tr.root + "/")
	require.NoError(t, err)
	assert.Equal(t, tr.root, w.Root())

	w, err = New(tr.ws("sub/deep/../.."))
	require.NoError(t, err)
	assert.Equal(t, tr.root, w.Root())

	w, err = New(tr.ws("link_in"))
	require.NoError(t, err)
	assert.Equal(t, tr.ws("sub"), w.Root())
	_, err = w.Resolve("../a.txt", Read)
	assertCode(t, err, Outside)
}

func TestNewRelative(t *testing.T) {
	tr := buildTree(t)
	t.Chdir(tr.ws("sub"))
	w, err := New(".")
	require.NoError(t, err)
	assert.Equal(t, tr.ws("sub"), w.Root())
	w, err = New("..")
	require.NoError(t, err)
	assert.Equal(t, tr.root, w.Root())
	assert.Equal(t, tr.root, w.Cwd())
}

func TestClone(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)
	require.NoError(t, w.Chdir("sub"))

	c := w.Clone()
	require.NotSame(t, w, c)
	assert.Equal(t, w.Root(), c.Root())
	assert.Equal(t, w.Cwd(), c.Cwd())

	require.NoError(t, c.Chdir("deep"))
	assert.Equal(t, tr.ws("sub/deep"), c.Cwd())
	assert.Equal(t, tr.ws("sub"), w.Cwd(), "Chdir on the clone moved the original")

	require.NoError(t, w.Chdir(".."))
	assert.Equal(t, tr.root, w.Cwd())
	assert.Equal(t, tr.ws("sub/deep"), c.Cwd(), "Chdir on the original moved the clone")

	got, err := c.Resolve("c.txt", Read)
	require.NoError(t, err)
	assert.Equal(t, tr.ws("sub/deep/c.txt"), got)
	got, err = w.Resolve("c.txt", Read)
	require.NoError(t, err)
	assert.Equal(t, tr.ws("c.txt"), got)

	// A clone keeps the root: it cannot climb out either.
	assertCode(t, c.Chdir("../../.."), Outside)
	assert.Equal(t, tr.ws("sub/deep"), c.Cwd())
}

func TestContains(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)

	for _, tc := range []struct {
		path string
		want bool
	}{
		{"$WS", true},
		{"$WS/", true},
		{"$WS/a.txt", true},
		{"$WS/sub/deep/c.txt", true},
		{"$WS/.git/config", true},
		{"$WS/missing/x", true},
		{"$WS//sub", true},
		{"$WS2", false},
		{"$WS2/file", false},
		{"$WSx", false},
		{"$BASE", false},
		{"$BASE/outside", false},
		{"/", false},
		{"", false},
		{"/etc/passwd", false},
		// Not real paths: ".." must not be taken as a component name.
		{"$WS/..", false},
		{"$WS/../outside/secret", false},
		{"$WS/sub/../../outside", false},
		{"$WS/" + strings.Repeat("../", 20) + "etc/passwd", false},
		// Relative paths are never contained, whatever their components.
		{strings.TrimPrefix(tr.root, "/"), false},
		{strings.TrimPrefix(tr.root, "/") + "/a.txt", false},
		{"a.txt", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			assert.Equal(t, tc.want, w.Contains(tr.expand(tc.path)))
		})
	}
}

func TestRel(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)
	assert.Equal(t, ".", w.Rel(tr.root))
	assert.Equal(t, "a.txt", w.Rel(tr.ws("a.txt")))
	assert.Equal(t, "sub/deep/c.txt", w.Rel(tr.ws("sub/deep/c.txt")))
	require.NoError(t, w.Chdir("sub"))
	assert.Equal(t, "sub/b.txt", w.Rel(tr.ws("sub/b.txt")), "Rel is relative to the root, not the cwd")
	assert.Equal(t, "sub", w.Rel(w.Cwd()))
}

// TestResolveAgreesWithKernel: for paths that the kernel can stat, a
// successful Resolve names the same file.
func TestResolveAgreesWithKernel(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)
	for _, cwd := range []string{".", "sub", "sub/deep", ".git"} {
		c := w.Clone()
		require.NoError(t, c.Chdir(cwd))
		for _, p := range []string{
			"a.txt", "../b.txt", "../../a.txt", "link_in/b.txt", "in_deep/../b.txt", "sub/uplink/a.txt",
			"chain1/c.txt", "file_link", "up_link/ws/a.txt", "link_out/../ws/a.txt", "uplink/a.txt",
			"../in_deep/../b.txt", "../uplink/uplink/a.txt", "../../in_deep/c.txt", "gitlink", "gitdirlink/hooks",
			"../config", "hooks/pre-commit", "esc/../ws/a.txt",
		} {
			got, err := c.Resolve(p, Read)
			raw := c.Cwd() + "/" + p
			kfi, kerr := os.Stat(raw)
			if err != nil || kerr != nil {
				continue
			}
			rfi, rerr := os.Stat(got)
			require.NoError(t, rerr, "cwd %s path %s resolved to missing %s", cwd, p, got)
			assert.True(t, os.SameFile(kfi, rfi), "cwd %s path %s: Resolve says %s, kernel disagrees", cwd, p, got)
			real, err := filepath.EvalSymlinks(got)
			require.NoError(t, err)
			assert.Equal(t, real, got, "result must be symlink-free")
		}
	}
}

// A write may replace a symlink itself, so where the link sits is checked
// as well as where it points.
func TestWriteChecksWhereALinkSits(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(dir, "ws")
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "file.txt"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "linked.txt"), nil, 0o644))
	require.NoError(t, os.Symlink("../linked.txt", filepath.Join(root, ".git", "lnk")))
	require.NoError(t, os.Symlink("file.txt", filepath.Join(root, "ok-link")))
	require.NoError(t, os.Symlink(filepath.Join(root, "file.txt"), filepath.Join(dir, "outside-link")))
	ws, err := New(root)
	require.NoError(t, err)

	_, err = ws.Resolve(".git/lnk", Read)
	assert.NoError(t, err, "reading through the link is reading linked.txt")
	// What the link in .git leads to is read as part of .git: it is
	// protected under its own name too.
	for p, code := range map[string]Code{".git/lnk": Protected, "../outside-link": Outside, "linked.txt": Protected} {
		_, err = ws.Resolve(p, Write)
		var be *BoundaryError
		require.ErrorAs(t, err, &be, p)
		assert.Equal(t, code, be.Code, p)
	}
	got, err := ws.Resolve("ok-link", Write)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "file.txt"), got)
}

func TestExtraRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, d := range []string{"ws", "ro/.git", "rw", "other"} {
		require.NoError(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	ws, err := New(filepath.Join(base, "ws"))
	require.NoError(t, err)
	require.NoError(t, ws.AddRoot(filepath.Join(base, "ro"), false))
	require.NoError(t, ws.AddRoot(filepath.Join(base, "rw"), true))
	require.Error(t, ws.AddRoot("relative", true))
	require.Error(t, ws.AddRoot("/", false))
	require.Error(t, ws.AddRoot(filepath.Join(base, "missing"), false))

	code := func(p string, a Access) Code {
		_, err := ws.Resolve(p, a)
		if err == nil {
			return ""
		}
		var be *BoundaryError
		require.ErrorAs(t, err, &be)
		return be.Code
	}
	assert.Equal(t, Code(""), code("../ro/x", Read))
	assert.Equal(t, Protected, code("../ro/x", Write))
	assert.Equal(t, Code(""), code("../rw/x", Write))
	assert.Equal(t, Protected, code(filepath.Join(base, "rw", ".git", "config"), Write))
	assert.Equal(t, Outside, code("../other/x", Read))
	assert.Equal(t, Outside, code("../rw2", Read), "a sibling named like a root is not inside it")

	c := ws.Clone()
	err = c.Chdir("../rw")
	var be *BoundaryError
	require.ErrorAs(t, err, &be, "the cwd stays in the workspace root")
	assert.Equal(t, Outside, be.Code)
}

func TestChdirPlanned(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)

	require.NoError(t, w.ChdirPlanned("sub/gen/deeper"))
	assert.Equal(t, tr.ws("sub/gen/deeper"), w.Cwd(), "a missing directory inside")
	require.NoError(t, w.ChdirPlanned(tr.root))
	require.NoError(t, w.ChdirPlanned("sub"))
	assert.Equal(t, tr.ws("sub"), w.Cwd(), "an existing one, as Chdir")

	for _, tc := range []struct {
		path string
		code Code
	}{
		{"../../elsewhere", Outside},
		{"esc/new", Outside},         // below a link to outside
		{"../dangling_out", Outside}, // a dangling link to outside
		{"gen/../../..", Invalid},    // ".." after a missing directory
		{"b.txt", Invalid},           // a file
		{"b.txt/x", Invalid},         // below a file
	} {
		before := w.Cwd()
		assertCode(t, w.ChdirPlanned(tc.path), tc.code)
		assert.Equal(t, before, w.Cwd(), "%s: cwd moved", tc.path)
	}
}

func TestSplitLast(t *testing.T) {
	for _, tc := range []struct{ in, dir, name string }{
		{"a", ".", "a"},
		{"a/b", "a", "b"},
		{"a/../b", "a/..", "b"},
		{"x/y/..", "x/y", ".."},
		{"/a", "/", "a"},
		{"dir/", ".", "dir/"},
		{"a/dir//", "a", "dir//"},
		{"/", "/", "/"},
		{"a//b", "a/", "b"},
	} {
		dir, name := SplitLast(tc.in)
		assert.Equal(t, tc.dir, dir, tc.in)
		assert.Equal(t, tc.name, name, tc.in)
	}
}

// A write to a link reached through "link/..": the link's location is
// where ".." leads from the link's target, not the text before it.
// (sub/uplink -> .., the root, so sub/uplink/.. is above the root.)
func TestWriteLinkLocationAfterDotDot(t *testing.T) {
	tr := buildTree(t)
	w, err := New(tr.root)
	require.NoError(t, err)
	// A link outside that points in: reached through sub/uplink/.., it
	// leads inside, but a write could replace the link itself.
	require.NoError(t, os.Symlink(tr.ws("a.txt"), tr.at("in_link")))
	got, err := w.Resolve("sub/uplink/../in_link", Read)
	require.NoError(t, err)
	assert.Equal(t, tr.ws("a.txt"), got)
	_, err = w.Resolve("sub/uplink/../in_link", Write)
	assertCode(t, err, Outside)
}
