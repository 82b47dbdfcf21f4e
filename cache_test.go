package vtexec

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/execpolicy"
)

func checkWith(t *testing.T, e *Engine, dir, cmd string) string {
	t.Helper()
	d, err := e.Check(context.Background(), Request{Command: cmd, Workspace: dir, AuditLog: "off"})
	require.NoError(t, err)
	return string(d.Decision)
}

// A long-lived Engine loads the policy once, sees a changed policy file or
// trust store on the next request, and never judges by a file that changed
// too recently to be told apart by its identity.
func TestEnginePolicyCache(t *testing.T) {
	config, _ := hermetic(t)
	dir := testDir(t)
	user := filepath.Join(config, "vtexec", "policy.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o755))
	rule := func(decision string) []byte { // the same size for ask and deny
		return []byte("[[rule]]\nprogram = \"head\"\ndecision = \"" + decision + "\"\n" +
			map[string]string{"ask": "#", "deny": ""}[decision])
	}
	e := NewEngine(Config{})
	t.Cleanup(func() { e.Close() })
	e.settle = 50 * time.Millisecond
	require.NoError(t, os.WriteFile(user, rule("deny"), 0o644))
	time.Sleep(2 * e.settle)

	assert.Equal(t, "deny", checkWith(t, e, dir, "head src/a\\ b.txt"))
	assert.Equal(t, "deny", checkWith(t, e, dir, "head src/a\\ b.txt"))
	assert.Equal(t, "allow", checkWith(t, e, dir, "cat src/a\\ b.txt"))
	assert.EqualValues(t, 1, e.loads.Load(), "an unchanged policy is not read again")

	// Rewritten in place, same size, twice within one tick: both seen.
	require.NoError(t, os.WriteFile(user, rule("ask"), 0o644))
	assert.Equal(t, "ask", checkWith(t, e, dir, "head src/a\\ b.txt"))
	require.NoError(t, os.WriteFile(user, rule("deny"), 0o644))
	assert.Equal(t, "deny", checkWith(t, e, dir, "head src/a\\ b.txt"))
	time.Sleep(2 * e.settle)
	loads := e.loads.Load()
	checkWith(t, e, dir, "head src/a\\ b.txt")
	checkWith(t, e, dir, "head src/a\\ b.txt")
	assert.Equal(t, loads+1, e.loads.Load(), "kept again once the file has settled")

	// A project rule counts once it is trusted: the trust store's change
	// is seen on the next request.
	project := filepath.Join(dir, ".vtexec", "policy.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(project), 0o755))
	require.NoError(t, os.WriteFile(project, []byte("[[rule]]\nprogram = \"tar\"\ndecision = \"allow\"\n"), 0o644))
	assert.Equal(t, "ask", checkWith(t, e, dir, askCmd))
	time.Sleep(2 * e.settle)
	assert.Equal(t, "ask", checkWith(t, e, dir, askCmd))
	files, err := PolicyFilesFor(dir)
	require.NoError(t, err)
	require.NoError(t, execpolicy.TrustStore{Path: files.TrustStore}.Trust(project))
	assert.Equal(t, "allow", checkWith(t, e, dir, askCmd))
	require.NoError(t, os.Remove(project))
	assert.Equal(t, "ask", checkWith(t, e, dir, askCmd), "a removed file is seen")
}
