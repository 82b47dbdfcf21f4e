package security

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// A protected place is protected wherever its entries resolve: an entry
// of the git directory that is a link (symbolic or hard) to an ordinary
// workspace file would let a write to that file rewrite what git reads
// its configuration or code from. Such a repository is refused.
func TestGitDirectoryEntriesMustStayProtected(t *testing.T) {
	for name, plant := range map[string]func(t *testing.T, ws string){
		"config is a symlink to a workspace file": func(t *testing.T, ws string) {
			require.NoError(t, os.Rename(filepath.Join(ws, ".git", "config"), filepath.Join(ws, "notes.cfg")))
			require.NoError(t, os.Symlink("../notes.cfg", filepath.Join(ws, ".git", "config")))
		},
		"info is a symlink to a workspace directory": func(t *testing.T, ws string) {
			require.NoError(t, os.MkdirAll(filepath.Join(ws, "docs", "info"), 0o755))
			require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git", "info")))
			require.NoError(t, os.Symlink("../docs/info", filepath.Join(ws, ".git", "info")))
		},
		"config is hard-linked to a workspace file": func(t *testing.T, ws string) {
			require.NoError(t, os.Link(filepath.Join(ws, ".git", "config"), filepath.Join(ws, "notes.cfg")))
		},
		"info/attributes is hard-linked to a workspace file": func(t *testing.T, ws string) {
			require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git", "info"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "info", "attributes"), nil, 0o644))
			require.NoError(t, os.Link(filepath.Join(ws, ".git", "info", "attributes"), filepath.Join(ws, "attrs")))
		},
	} {
		t.Run(name, func(t *testing.T) {
			ws := fixture(t)
			require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git")))
			git := exec.Command("git", "init", "-q")
			git.Dir = ws
			require.NoError(t, git.Run())
			d, err := testEngine.Check(context.Background(), vtexec.Request{Command: "git status", Workspace: ws, AuditLog: "off"})
			require.NoError(t, err)
			require.Equal(t, "allow", string(d.Decision), "before the plant: %s", d.Reason)
			plant(t, ws)
			d, err = testEngine.Check(context.Background(), vtexec.Request{Command: "git status", Workspace: ws, AuditLog: "off"})
			require.NoError(t, err)
			assert.Equal(t, "deny", string(d.Decision), d.Reason)
			assert.NotEmpty(t, d.Hint)
		})
	}
}
