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
	c := New()
	// A first run during which a file changes is not trusted: the next
	// asks need a run of their own.
	head := filepath.Join(dir, ".git", "HEAD")
	afterHelpers = func() { touch(t, head) }
	t.Cleanup(func() { afterHelpers = nil })
	first := c.Ask(dir, nil)
	afterHelpers = nil
	perAsk := c.Runs()
	require.Greater(t, perAsk, int64(0))
	time.Sleep(2 * RacyWindow) // the files old enough to be confirmed
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

// A first run over files that had settled long before is trusted at
// once; one during which a file it read changed, or went away, is not,
// however long the run took: the next ask runs git again and sees the
// change.
func TestFirstRunIsTrustedOnlyOverSettledFiles(t *testing.T) {
	needGit(t)
	settled := func(t *testing.T) (string, *Cache) {
		dir := t.TempDir()
		require.NoError(t, exec.Command("git", "init", "-q", dir).Run())
		// In a directory of its own, which nothing else depends on.
		require.NoError(t, os.Mkdir(filepath.Join(dir, ".git", "inc"), 0o755))
		extra := filepath.Join(dir, ".git", "inc", "extra.cfg")
		require.NoError(t, os.WriteFile(extra, []byte("[gone]\n\tkey = yes\n"), 0o644))
		f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString("[include]\n\tpath = inc/extra.cfg\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
		time.Sleep(2 * RacyWindow)
		return dir, New()
	}
	t.Run("settled", func(t *testing.T) {
		dir, c := settled(t)
		c.Ask(dir, nil)
		runs := c.Runs()
		c.Ask(dir, nil)
		assert.Equal(t, runs, c.Runs(), "asked again, an unchanged repository runs no git")
	})
	for _, change := range []struct {
		name string
		make func(t *testing.T, dir string)
		key  string
		want bool
	}{
		{"a key added", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString("[added]\n\tkey = yes\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, "added.key", true},
		{"an included file removed", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, ".git", "inc", "extra.cfg")))
		}, "gone.key", false},
	} {
		t.Run(change.name, func(t *testing.T) {
			dir, c := settled(t)
			// A slow run: the change is old by the time it ends, so
			// only what was there before the run can tell.
			afterHelpers = func() {
				change.make(t, dir)
				time.Sleep(2 * RacyWindow)
			}
			t.Cleanup(func() { afterHelpers = nil })
			first := c.Ask(dir, nil)
			afterHelpers = nil
			_, had := first.Value(change.key)
			require.Equal(t, !change.want, had, "the first run read the files before the change")
			time.Sleep(2 * RacyWindow) // only the first run's own view could hide it now
			_, has := c.Ask(dir, nil).Value(change.key)
			assert.Equal(t, change.want, has, "the answers of the run the change fell in were trusted")
		})
	}
}

// touch writes path's content back, changing its times.
func touch(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

func needGit(t *testing.T) {
	t.Helper()
	_, err := Program()
	require.NoError(t, err, "git is needed (a clone has it; .ci/run installs it)")
}
