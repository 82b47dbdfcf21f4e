package validators

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/gitrepo"
	"github.com/vtexec/vtexec/workspace"
)

// gitCacheWarm checks argv until git's answers about the repository are
// cached and confirmed: past the racy window, a first run records and
// confirms them; later checks must start no git.
func gitCacheWarm(t *testing.T, ws *workspace.Workspace, argv ...string) {
	t.Helper()
	time.Sleep(gitrepo.RacyWindow + 20*time.Millisecond)
	for i := 0; i < 2; i++ {
		require.Nil(t, gitFinding(t, ws, argv...), "git %v before the change", argv)
	}
	runs := gitrepo.Shared().Runs()
	require.Nil(t, gitFinding(t, ws, argv...))
	require.Equal(t, runs, gitrepo.Shared().Runs(), "git %v ran git again on an unchanged repository", argv)
}

func TestGitCacheUnchangedRepositoryRunsNoGit(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	ws := gitWS(t, dir)
	time.Sleep(gitrepo.RacyWindow + 20*time.Millisecond)
	runs := gitrepo.Shared().Runs()
	assert.Nil(t, gitFinding(t, ws, "status"))
	assert.Equal(t, int64(3), gitrepo.Shared().Runs()-runs, "rev-parse, config and ls-files")
	for i := 0; i < 3; i++ {
		assert.Nil(t, gitFinding(t, ws, "status"))
		assert.Nil(t, gitFinding(t, ws, "log", "--oneline", "-5"))
		assert.Nil(t, gitFinding(t, ws, "diff", "HEAD~1", "--", "a.txt"))
	}
	assert.Equal(t, int64(3), gitrepo.Shared().Runs()-runs, "an unchanged repository is not asked again: its files had settled before the first run")

	// A subdirectory is another question (discovery starts there).
	require.NoError(t, ws.Chdir("src"))
	assert.Nil(t, gitFinding(t, ws, "status"))
	assert.Equal(t, int64(6), gitrepo.Shared().Runs()-runs)
}

// A key added to .git/config in place (the git directory unchanged).
func TestGitCacheSeesConfigChange(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	ws := gitWS(t, dir)
	gitCacheWarm(t, ws, "diff")
	gitAppendConfig(t, dir, "[diff \"x\"]\n\ttextconv = cat\n")
	f := gitFinding(t, ws, "diff")
	require.NotNil(t, f, "a cached answer judged the changed configuration")
	assert.Equal(t, CodeGitConfig, f.Code)
	assert.Contains(t, f.Reason, "textconv")
}

// The user's global configuration is never read (commands get a private
// HOME, and the inspection an empty one), so what it includes or turns on
// for a branch changes nothing: neither a refusal nor a stale answer.
func TestGitCacheIgnoresTheUsersConfiguration(t *testing.T) {
	home := gitHermetic(t)
	dir := gitRepoDir(t)
	ws := gitWS(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "evil.cfg"), []byte("[diff \"x\"]\n\ttextconv = cat\n"), 0o644))
	inc := filepath.Join(home, "evil.inc")
	require.NoError(t, os.WriteFile(inc, []byte(fmt.Sprintf("[include]\n\tpath = %s/docs/evil.cfg\n", dir)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[includeIf \"onbranch:evil\"]\n\tpath = "+inc+"\n[include]\n\tpath = "+inc+"\n"), 0o644))
	gitSetup(t, dir, "branch", "evil")
	assert.Nil(t, gitFinding(t, ws, "log", "--oneline", "-5"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/evil\n"), 0o644))
	assert.Nil(t, gitFinding(t, ws, "log", "--oneline", "-5"))
	// The same include in the repository's own configuration is judged.
	gitAppendConfig(t, dir, fmt.Sprintf("[include]\n\tpath = %s/docs/evil.cfg\n", dir))
	f := gitFinding(t, ws, "log", "--oneline", "-5")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitConfig, f.Code)
}

// A directory of index entries becomes a link out of the workspace: the
// working tree is looked at on every check.
func TestGitCacheSeesWorkingTreeLink(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	ws := gitWS(t, dir)
	gitCacheWarm(t, ws, "grep", "package")
	require.NoError(t, os.Rename(filepath.Join(dir, "src"), filepath.Join(dir, "src.old")))
	require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(dir, "src")))
	f := gitFinding(t, ws, "grep", "package")
	require.NotNil(t, f, "a cached answer hid the link")
	assert.Equal(t, string(workspace.Outside), f.Code)
	assert.Contains(t, f.Reason, "src")
}

// A repository appears between the directory and the one found before:
// discovery would now stop there.
func TestGitCacheSeesRepositoryOnTheWay(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	ws := gitWS(t, dir)
	require.NoError(t, ws.Chdir("src"))
	gitCacheWarm(t, ws, "status")
	gitSetup(t, filepath.Join(dir, "src"), "init", "-q")
	runs := gitrepo.Shared().Runs()
	assert.Nil(t, gitFinding(t, ws, "status"))
	assert.Greater(t, gitrepo.Shared().Runs(), runs, "the cached answers were about the repository above")
	repo, err := gitrepo.Shared().Ask(ws.Cwd(), nil).Repo(ws.Cwd())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "src"), repo.TopLevel)
}

// A link out of the workspace appears in the git directory.
func TestGitCacheSeesGitDirLink(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	ws := gitWS(t, dir)
	gitCacheWarm(t, ws, "log")
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, ".git", "refs", "heads", "stolen")))
	f := gitFinding(t, ws, "log")
	require.NotNil(t, f, "a cached walk missed the link")
	assert.Equal(t, string(workspace.Outside), f.Code)
	assert.Contains(t, f.Reason, "stolen")
}

// BenchmarkGitCheckCached is the cost of checking a git command once
// git's answers about the repository are cached (ns/op), and of the first
// check, which runs git (uncached-µs).
//
//	go test -run '^$' -bench GitCheckCached ./validators
func BenchmarkGitCheckCached(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	dir, err := filepath.EvalSymlinks(b.TempDir())
	require.NoError(b, err)
	for name, body := range map[string]string{"a.txt": "one\n", "src/c.go": "package c\n", "docs/d.md": "d\n"} {
		p := filepath.Join(dir, name)
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(body), 0o644))
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main", "."}, {"add", "."}, {"commit", "-qm", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, "%s", out)
	}
	ws, err := workspace.New(dir)
	require.NoError(b, err)
	time.Sleep(gitrepo.RacyWindow + 20*time.Millisecond)
	call := &Call{Argv: []string{"git", "log", "--oneline", "-5"}, WS: ws}
	start := time.Now()
	require.NoError(b, checkGit(call))
	uncached := time.Since(start)
	require.NoError(b, checkGit(call))
	runs := gitrepo.Shared().Runs()
	for b.Loop() {
		if err := checkGit(call); err != nil {
			b.Fatal(err)
		}
	}
	require.Equal(b, runs, gitrepo.Shared().Runs(), "git ran during the benchmark")
	b.ReportMetric(float64(uncached.Microseconds()), "uncached-µs")
}

// A directory deep in the working tree, replaced by a link after the
// leading directories were found free of links: the kept check sees it.
func TestGitCacheSeesNestedWorkingTreeLink(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	deep := filepath.Join(dir, "src", "pkg", "inner")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(deep, "x.go"), []byte("package inner\n"), 0o644))
	gitSetup(t, dir, "add", "src")
	gitSetup(t, dir, "commit", "-qm", "deep")
	ws := gitWS(t, dir)
	gitCacheWarm(t, ws, "grep", "package")
	require.NoError(t, os.Rename(deep, deep+".old"))
	require.NoError(t, os.Symlink(t.TempDir(), deep))
	f := gitFinding(t, ws, "grep", "package")
	require.NotNil(t, f, "a kept check hid the link")
	assert.Equal(t, string(workspace.Outside), f.Code)
	assert.Contains(t, f.Reason, "inner")
}
