package validators

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/gitrepo"
	"github.com/vtexec/vtexec/workspace"
)

// fakeInspector answers for git: a repository at top with the given
// configuration listing, and an empty git directory walk.
type fakeInspector struct {
	top    string
	config []gitrepo.Entry
	asked  int
}

func (f *fakeInspector) Ask(dir string, repoArgs []string) *gitrepo.Answers {
	f.asked++
	gd := filepath.Join(f.top, ".git")
	var listing strings.Builder
	for _, e := range f.config {
		listing.WriteString(e.Scope + "\x00" + e.Origin + "\x00" + e.Key + "\n" + e.Value + "\x00")
	}
	return &gitrepo.Answers{
		RevParse: gitrepo.Output{Stdout: []byte(gd + "\n" + gd + "\nfalse\n" + f.top + "\n")},
		Config:   gitrepo.Output{Stdout: []byte(listing.String())},
		HasIndex: true,
	}
}

func (f *fakeInspector) WalkGitDir(string) *gitrepo.Walk { return &gitrepo.Walk{} }

func fakeRepo(t *testing.T, config ...gitrepo.Entry) (*workspace.Workspace, *fakeInspector) {
	t.Helper()
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(top, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(top, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	ws, err := workspace.New(top)
	require.NoError(t, err)
	return ws, &fakeInspector{top: top, config: config}
}

func fakeFinding(t *testing.T, ws *workspace.Workspace, insp gitrepo.Inspector, argv ...string) *Finding {
	t.Helper()
	err := checkGit(&Call{Argv: append([]string{"git"}, argv...), WS: ws, Git: insp})
	if err == nil {
		return nil
	}
	var f *Finding
	require.True(t, errors.As(err, &f), "not a finding: %v", err)
	return f
}

// The git validator judges what its Inspector says, and asks nothing
// else: no git process starts, so the judgement can be tested without a
// repository git would describe that way.
func TestGitJudgesTheInspectorsAnswers(t *testing.T) {
	runs := gitrepo.Shared().Runs()
	local := func(key, value string) gitrepo.Entry {
		return gitrepo.Entry{Scope: "local", Origin: "file:.git/config", Key: key, Value: value}
	}
	global := func(key, value string) gitrepo.Entry {
		return gitrepo.Entry{Scope: "global", Origin: "file:/nonexistent/.gitconfig", Key: key, Value: value}
	}

	ws, insp := fakeRepo(t)
	assert.Nil(t, fakeFinding(t, ws, insp, "log", "--oneline"), "a plain repository")
	assert.Equal(t, 1, insp.asked)

	for _, e := range []gitrepo.Entry{local("diff.external", "sh -c x"), local("filter.x.smudge", "sh"), local("core.pager", "sh -c x"),
		local("include.path", "../x"), local("format.outputdirectory", "/tmp/elsewhere")} {
		ws, insp := fakeRepo(t, e)
		f := fakeFinding(t, ws, insp, "log")
		if e.Key == "core.pager" {
			assert.Nil(t, f, "the runner's environment overrides %s", e.Key)
			continue
		}
		require.NotNil(t, f, "%s=%s in the repository's configuration", e.Key, e.Value)
		assert.Equal(t, CodeGitConfig, f.Code)
		assert.Contains(t, f.Reason, e.Key)
	}

	// Keys that run programs only on the network count on a partial
	// clone, which fetches on any read.
	ws, insp = fakeRepo(t, local("core.sshcommand", "sh -c x"))
	assert.Nil(t, fakeFinding(t, ws, insp, "log"))
	ws, insp = fakeRepo(t, local("core.sshcommand", "sh -c x"), local("extensions.partialclone", "origin"))
	f := fakeFinding(t, ws, insp, "log")
	require.NotNil(t, f, "a partial clone fetches with core.sshCommand")
	assert.Contains(t, f.Reason, "core.sshcommand")

	// The same key from the user's own configuration is trusted.
	ws, insp = fakeRepo(t, global("diff.external", "difft"))
	assert.Nil(t, fakeFinding(t, ws, insp, "diff"))

	assert.Equal(t, runs, gitrepo.Shared().Runs(), "a git process started beside the fake")
}
