package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnswersRepo(t *testing.T) {
	for _, c := range []struct {
		name string
		out  Output
		want *Repo
		err  bool
	}{
		{"a working tree", Output{Stdout: []byte("/w/.git\n/w/.git\nfalse\n/w\n")}, &Repo{GitDir: "/w/.git", CommonDir: "/w/.git", TopLevel: "/w"}, false},
		{"a bare repository", Output{Stdout: []byte("/b\n/b\ntrue\n"), Stderr: "fatal: this operation must be run in a work tree", Err: errors.New("exit status 128")},
			&Repo{GitDir: "/b", CommonDir: "/b"}, false},
		{"no repository", Output{Stderr: "fatal: not a git repository (or any of the parent directories): .git", Err: errors.New("exit status 128")}, nil, false},
		{"git could not say", Output{Stderr: "fatal: detected dubious ownership in repository at '/w'\nmore", Err: errors.New("exit status 128")}, nil, true},
		{"git did not run", Output{Err: errors.New("no git on the trusted PATH")}, nil, true},
	} {
		a := &Answers{RevParse: c.out}
		repo, err := a.Repo("/w")
		assert.Equal(t, c.want, repo, c.name)
		if !c.err {
			assert.NoError(t, err, c.name)
			continue
		}
		var u *Uninspectable
		require.True(t, errors.As(err, &u), c.name)
		assert.NotContains(t, u.Message, "\n", c.name)
		assert.NotEmpty(t, u.Message, c.name)
	}
}

func TestAnswersEntries(t *testing.T) {
	a := &Answers{Config: Output{Stdout: []byte(
		"system\x00file:/etc/gitconfig\x00core.autocrlf\nfalse\x00" +
			"local\x00file:.git/config\x00include.path\n../x.cfg\x00" +
			"local\x00file:.git/config\x00includeif.onbranch:main.path\n/abs.cfg\x00" +
			"command\x00command line:\x00core.hookspath\n/dev/null\x00" +
			"local\x00file:.git/config\x00Format.OutputDirectory\npatches\x00" +
			"local\x00file:.git/config\x00format.outputdirectory\nlast\x00" +
			"local\x00file:.git/config\x00core.bare\x00")}}
	es := a.Entries()
	require.Len(t, es, 7)
	assert.Equal(t, Entry{Scope: "system", Origin: "file:/etc/gitconfig", Key: "core.autocrlf", Value: "false"}, es[0])
	assert.Equal(t, "/etc/gitconfig", es[0].File("/w"))
	assert.Equal(t, "/w/.git/config", es[1].File("/w"), "a relative origin is taken from where git ran")
	assert.Equal(t, "", es[3].File("/w"), "from the command line")
	assert.True(t, es[1].Includes())
	assert.True(t, es[2].Includes())
	assert.False(t, es[0].Includes())
	assert.Equal(t, "", es[6].Value, "a key without a value")
	v, ok := a.Value("format.outputdirectory")
	assert.True(t, ok)
	assert.Equal(t, "last", v, "the last value wins, whatever the case")
	_, ok = a.Value("core.pager")
	assert.False(t, ok)

	t.Setenv("HOME", "/home/u")
	assert.Equal(t, "/w/x.cfg", IncludeTarget("/w/.git/config", "../x.cfg"))
	assert.Equal(t, "/abs.cfg", IncludeTarget("/w/.git/config", "/abs.cfg"))
	assert.Equal(t, "/home/u/inc", IncludeTarget("/w/.git/config", "~/inc"))
	assert.Equal(t, "", IncludeTarget("", "rel"), "relative to no file")
}

// Asked for the same repository side by side (a stream checks lines on
// every CPU), the cache runs git's helpers once and the others wait for
// their answers instead of running git alongside.
func TestConcurrentAsksShareOneRun(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	require.NoError(t, exec.Command("git", "init", "-q", dir).Run())
	time.Sleep(2 * RacyWindow) // the files old enough to be confirmed
	c := New()
	first := c.Ask(dir, nil)
	perAsk := c.Runs()
	require.Greater(t, perAsk, int64(0))
	var wg sync.WaitGroup
	answers := make([]*Answers, 8)
	for i := range answers {
		wg.Go(func() { answers[i] = c.Ask(dir, nil) })
	}
	wg.Wait()
	assert.Equal(t, 2*perAsk, c.Runs(), "one more run confirms the answers for all eight")
	for _, a := range answers {
		repo, err := a.Repo(dir)
		require.NoError(t, err)
		want, _ := first.Repo(dir)
		assert.Equal(t, want, repo)
	}
}

// Asked from a subdirectory, the index is the whole working tree's, as
// asked from its top: ls-files runs beside rev-parse there, with the
// whole tree as its pathspec.
func TestIndexFromASubdirectoryIsTheWholeTree(t *testing.T) {
	needGit(t)
	top := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", top}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git("init", "-q")
	for _, f := range []string{"a/b/c.txt", "d/e.txt", "top.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Join(top, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(top, f), []byte(f), 0o644))
	}
	git("add", ".")
	git("update-index", "--add", "--cacheinfo", "160000,0123456789012345678901234567890123456789,mods/sub")
	fromTop := New().Ask(top, nil)
	fromSub := New().Ask(filepath.Join(top, "a", "b"), nil)
	for _, a := range []*Answers{fromTop, fromSub} {
		require.True(t, a.HasIndex)
		require.NoError(t, a.Index.Err)
		assert.Equal(t, []string{"mods/sub"}, a.Index.Gitlinks)
		assert.ElementsMatch(t, []string{"a/b", "a", "d", "mods"}, a.Index.Dirs)
	}
	outside := New().Ask(t.TempDir(), nil)
	assert.False(t, outside.HasIndex, "no working tree: no index")
}

// needGit requires git on the trusted PATH, as the other packages'
// git tests do.
func needGit(t *testing.T) {
	t.Helper()
	_, err := Program()
	require.NoError(t, err, "git is needed (a clone has it; .ci/run installs it)")
}
