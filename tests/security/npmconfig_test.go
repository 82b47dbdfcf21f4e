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

// npm's configuration is part of npm ls (allowed without asking): the
// project npm finds walking up, its .npmrc and its workspaces cannot
// lead it to read outside the workspace.
func TestNpmConfigurationStaysInside(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	e := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, "npm")})
	t.Cleanup(func() { e.Close() })
	write := func(p, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	outside := filepath.Join(base, "outside")
	write(filepath.Join(outside, "lib/node_modules/secret/package.json"), `{"name": "secret"}`)
	cases := []struct {
		name  string
		setup func(ws string)
		want  string
	}{
		{"plain project", func(ws string) { write(filepath.Join(ws, "package.json"), `{"name": "p"}`) }, "allow"},
		{"printing settings", func(ws string) {
			write(filepath.Join(ws, "package.json"), `{"name": "p"}`)
			write(filepath.Join(ws, ".npmrc"), "color=false\nfund=false\n")
		}, "allow"},
		{"a prefix outside", func(ws string) {
			write(filepath.Join(ws, "package.json"), `{"name": "p"}`)
			write(filepath.Join(ws, ".npmrc"), "prefix="+outside+"\n")
		}, "ask"},
		{"the project above", func(ws string) {
			write(filepath.Join(filepath.Dir(ws), "package.json"), `{"name": "above"}`)
			require.NoError(t, os.MkdirAll(ws, 0o755))
		}, "deny"},
		{"a workspace outside", func(ws string) {
			write(filepath.Join(ws, "package.json"), `{"name": "p", "workspaces": ["../outside"]}`)
		}, "deny"},
		{"a workspace through a link", func(ws string) {
			write(filepath.Join(ws, "package.json"), `{"name": "p", "workspaces": {"packages": ["packages/*"]}}`)
			require.NoError(t, os.Symlink(outside, filepath.Join(ws, "packages")))
		}, "deny"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := filepath.Join(base, "case", string(rune('a'+i)), "ws")
			tc.setup(ws)
			for _, cmd := range []string{"npm ls", "npm ls -g", "npm ls --all"} {
				d, err := e.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
				require.NoError(t, err)
				assert.Equal(t, tc.want, string(d.Decision), "%s: %s %s", cmd, d.Code, d.Reason)
			}
		})
	}
}
