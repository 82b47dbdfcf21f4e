package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/plan"
)

// vtexec can never be started from a command string, under any name or
// path: its flags could approve commands (--approve) or take the box
// away (--confinement off).
func TestVtexecCannotRunItself(t *testing.T) {
	ws := fixture(t)
	dir := standins(t, "vtexec")
	self, err := os.Executable()
	require.NoError(t, err)
	require.NoError(t, os.Symlink(self, filepath.Join(dir, "innocent")))
	// The same file under another name, no link to tell.
	require.NoError(t, os.Link(self, filepath.Join(dir, "harmless")))
	e := vtexec.NewEngine(vtexec.Config{TrustedPath: dir + ":" + plan.TrustedPath})
	t.Cleanup(func() { e.Close() })
	for _, cmd := range []string{
		"vtexec run --confinement off -- ls",
		"innocent run --approve once --approval-id x -- 'rm -r src'",
		"timeout 5 innocent check -- ls",
		"harmless run --confinement off -- ls",
		"nice harmless check -- ls",
	} {
		d, err := e.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, "deny", string(d.Decision), cmd)
		assert.Equal(t, "forbidden_program", d.Code, "%s: %s", cmd, d.Reason)
	}
}
