package vtexec

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
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

// sameSizeRule is a user policy rule for head, of the same size whether
// it asks or denies.
func sameSizeRule(decision string) []byte {
	return []byte("[[rule]]\nprogram = \"head\"\ndecision = \"" + decision + "\"\n" +
		map[string]string{"ask": "#", "deny": ""}[decision])
}

// settlingEngine is an Engine that keeps a policy whose files have
// stayed unchanged for 50 ms.
func settlingEngine(t *testing.T) *Engine {
	e := NewEngine(Config{})
	t.Cleanup(func() { e.Close() })
	e.settle = 50 * time.Millisecond
	return e
}

// A long-lived Engine loads the policy once, sees a changed policy file or
// trust store on the next request, and never judges by a file that changed
// too recently to be told apart by its identity.
func TestEnginePolicyCache(t *testing.T) {
	config, _ := hermetic(t)
	dir := testDir(t)
	user := filepath.Join(config, "vtexec", "policy.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o755))
	rule := sameSizeRule
	e := settlingEngine(t)
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

// Once a kept policy is asked for again, a watch of its files and of the
// directories on the way to them stands for their identities: no stat
// while nothing changes there (a log written beside the trust store, a
// file made in the workspace), and every way the files can change is
// seen on the next request — written in place, made where missing, a
// directory on the way replaced, a user file that is a link.
func TestEnginePolicyWatchStandsForTheFiles(t *testing.T) {
	config, state := hermetic(t)
	if runtime.GOOS != "linux" {
		// No inotify: the identities are compared on every request
		// (TestEnginePolicyCache).
		files, err := PolicyFilesFor(testDir(t))
		require.NoError(t, err)
		assert.Nil(t, watchPolicyFiles(files))
		return
	}
	dir := testDir(t)
	rule := sameSizeRule
	e := settlingEngine(t)
	user := filepath.Join(config, "vtexec", "policy.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o755))
	require.NoError(t, os.WriteFile(user, rule("deny"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(state, "vtexec"), 0o755))
	settled := func() {
		time.Sleep(2 * e.settle)
		checkWith(t, e, dir, "head src/a\\ b.txt") // loaded and kept
		checkWith(t, e, dir, "head src/a\\ b.txt") // asked again: watched
	}
	watched := func(msg string) {
		t.Helper()
		stats := e.stats.Load()
		checkWith(t, e, dir, "cat src/a\\ b.txt")
		assert.Equal(t, stats, e.stats.Load(), "no stat while the watch stands: %s", msg)
	}
	settled()
	watched("settled")
	log := filepath.Join(state, "vtexec", "audit.jsonl")
	require.NoError(t, os.WriteFile(log, []byte("x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(config, "vtexec", "other.toml"), nil, 0o644))
	watched("other names written")

	// In place, the same size, within the tick of the last load.
	f, err := os.OpenFile(user, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(rule("ask"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Equal(t, "ask", checkWith(t, e, dir, "head src/a\\ b.txt"), "written in place")

	// A directory on the way replaced by another holding another policy.
	require.NoError(t, os.WriteFile(user, rule("deny"), 0o644))
	settled()
	watched("settled again")
	require.NoError(t, os.Rename(config, config+".old"))
	require.NoError(t, os.MkdirAll(filepath.Join(config, "vtexec"), 0o755))
	require.NoError(t, os.WriteFile(user, rule("ask"), 0o644))
	assert.Equal(t, "ask", checkWith(t, e, dir, "head src/a\\ b.txt"), "a directory on the way replaced")

	// Made where .vtexec was missing: a trusted project rule.
	settled()
	watched("settled with no .vtexec")
	project := filepath.Join(dir, ".vtexec", "policy.toml")
	files, err := PolicyFilesFor(dir)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(project), 0o755))
	require.NoError(t, os.WriteFile(project, []byte("[[rule]]\nprogram = \"tar\"\ndecision = \"allow\"\n"), 0o644))
	require.NoError(t, execpolicy.TrustStore{Path: files.TrustStore}.Trust(project))
	assert.Equal(t, "allow", checkWith(t, e, dir, askCmd), "made where it was missing")

	// A user file that is a link: what it leads to can change elsewhere,
	// so its identity is taken on every request.
	target := filepath.Join(t.TempDir(), "policy.toml")
	require.NoError(t, os.WriteFile(target, rule("deny"), 0o644))
	require.NoError(t, os.Remove(user))
	require.NoError(t, os.Symlink(target, user))
	settled()
	assert.Equal(t, "deny", checkWith(t, e, dir, "head src/a\\ b.txt"))
	f, err = os.OpenFile(target, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(rule("ask"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Equal(t, "ask", checkWith(t, e, dir, "head src/a\\ b.txt"), "the link's target written")
}
