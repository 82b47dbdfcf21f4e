package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// Paths with ".." after a symbolic link mean what the kernel makes of
// them: ".." is taken from where the link leads, not by deleting text.
// Writers that split a path into directory and name, or join a
// destination and a source's name, must do the same; and one cp or mv
// with several sources may not let an earlier source's link redirect a
// later one.
func TestWritersResolveDotDotPhysically(t *testing.T) {
	ws := sequenceFixture(t)
	for name, target := range map[string]string{
		"nested/sub/y": "../..",            // the workspace root
		"nested/sub/z": "../../.git/refs",  // inside .git
		"nested/sub/w": "../../docs",       // docs
		"pl":           "nested",           // an inside link to a directory
		"sub/l2":       "../outside",       // leads to ws/outside, missing
		"dl/f":         "../../ws2/victim", // outside
		"../current":   "ws/README.md",     // a link outside pointing in
		"../current2":  "ws/file.txt",
	} {
		p := filepath.Join(ws, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.Symlink(target, p))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "pol", ".vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pol", ".vtexec", "policy.local.toml"), []byte("# x\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "dd"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git", "refs"), 0o755))
	// hl/d/f -> g/X and hl/d/g -> ../../T, with T/X -> outside: f leads
	// outside through its sibling g, which the copy creates.
	for name, target := range map[string]string{"hl/d/f": "g/X", "hl/d/g": "../../T", "T/X": "../../ws2/victim"} {
		p := filepath.Join(ws, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.Symlink(target, p))
	}
	for name, body := range map[string]string{"hb/d/f": "PWNED\n", "bsrc/.gi": "x\n", "bout/bsrc/.gi": "gitdir: /tmp\n"} {
		p := filepath.Join(ws, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "hout"), 0o755))

	for cmd, code := range map[string]string{
		"cp -r src/deep/.. dl":                                         "bad_usage",
		"cp --parents nested/sub/y/../file.txt dd":                     "outside_workspace", // y/.. is above the root
		"cp --parents nested/sub/w/../file.txt dd":                     "bad_usage",
		"cp -p --parents nested/sub/z/../config dd":                    "bad_usage",
		"cp -r pol/.vtexec nested/sub/w/..":                            "protected_path",
		"mv pol/.vtexec nested/sub/w/..":                               "protected_path",
		"mv nested/sub/y/../../ws2/secret.txt docs/":                   "outside_workspace",
		"mv nested/sub/z/../config docs/gitconfig":                     "protected_path",
		"sed -i s/a/b/ nested/sub/y/../../current":                     "outside_workspace",
		"cp --remove-destination file.txt nested/sub/y/../../current2": "outside_workspace",
		"cp -P --parents pl pl/d/g dd":                                 "bad_usage",
		"cp -P sub/l2 l2/secret nested/sub/w/..":                       "bad_usage",
		"cp -rH hl/d hb/d hout":                                        "bad_usage",      // -H copies the links inside as links
		"cp -r -b -S t bsrc bout":                                      "protected_path", // a backup deep in the tree named .git
		"cp -r hl/d hout":                                              "outside_workspace",
		"mv sub/l2 nested/sub/w/..":                                    "outside_workspace",
	} {
		t.Run(cmd, func(t *testing.T) {
			d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
			require.NoError(t, err)
			assert.Equal(t, "deny", string(d.Decision), "%s: %s", cmd, d.Reason)
			assert.Equal(t, code, d.Code, "%s: %s", cmd, d.Reason)
		})
	}
	// The same operations without the detour stay allowed.
	for _, cmd := range []string{"cp -r docs dd", "cp --parents src/a.txt dd", "mv docs/guide.md dd/", "cp file.txt README.md dd", "cp -P pl dd/pl2"} {
		d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, "allow", string(d.Decision), "%s: %s", cmd, d.Reason)
	}
}
