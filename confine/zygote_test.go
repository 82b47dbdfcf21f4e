//go:build linux

package confine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withHelpersAhead has KeepReady start helpers ahead for the test, as it
// does where programs cannot start directly (see KeepReady).
func withHelpersAhead(t *testing.T) {
	saved := directStart
	directStart = false
	t.Cleanup(func() { directStart = saved })
}

// readyZygote asks b to keep a helper ready and waits until it started;
// nil where programs start without a helper (as root).
func readyZygote(t *testing.T, b *Box, git bool) *zygote {
	b.KeepReady(git)
	b.zyg.mu.Lock()
	z := b.zyg.ready[zygoteSlot(git)]
	b.zyg.mu.Unlock()
	if z != nil {
		<-z.ready // confined, and waiting for its program
		require.NoError(t, z.err)
	}
	return z
}

// runOut starts cmd in b through StartWith and returns its output and
// how it ended.
func runOut(t *testing.T, b *Box, cmd *exec.Cmd, opts StartOptions) (string, error) {
	return runOutThen(t, b, cmd, opts, func() {})
}

// runOutThen is runOut calling started once the start has returned,
// before waiting.
func runOutThen(t *testing.T, b *Box, cmd *exec.Cmd, opts StartOptions, started func()) (string, error) {
	out, werr, err := runCaptured(b, cmd, opts, t.TempDir(), started)
	require.NoError(t, err)
	return out, werr
}

// runCaptured starts cmd in b with its output to a file in dir, calls
// started once the start has returned, and returns the output and how
// the program ended (werr); err is the start's or the file's error. It
// fails no test: the main thread's callers (onMainThreadDo) use it too.
func runCaptured(b *Box, cmd *exec.Cmd, opts StartOptions, dir string, started func()) (out string, werr, err error) {
	f, err := os.CreateTemp(dir, "out")
	if err != nil {
		return "", nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	p, err := b.StartWith(cmd, nil, opts)
	started()
	if err != nil {
		return "", nil, err
	}
	werr = p.Wait()
	data, err := os.ReadFile(f.Name())
	return string(data), werr, err
}

// served is a box's workspace for a program started by what the box
// prepared ahead: a protected .envrc, a subdirectory with input for the
// program, and a directory outside.
type served struct {
	dir, outside string
	spec         Spec
}

func newServed(t *testing.T) served {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "in.txt"), []byte("from stdin\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".envrc"), []byte("keep\n"), 0o644))
	return served{dir: dir, outside: t.TempDir(),
		spec: Spec{ReadWrite: []string{dir}, Protected: []Protected{{Path: filepath.Join(dir, ".envrc")}}}}
}

// command is a program in the subdirectory that prints where it runs, its
// environment and its input, runs more, tries to write outside and to
// the protected name, and exits 3.
func (s served) command(t *testing.T, more string) *exec.Cmd {
	in, err := os.Open(filepath.Join(s.dir, "sub", "in.txt"))
	require.NoError(t, err)
	t.Cleanup(func() { in.Close() })
	cmd := exec.Command("/bin/sh", "-c", `pwd; echo "$SERVED_TEST"; cat; `+more+
		`; echo x > `+s.outside+`/f || echo outside-refused; echo y >> ../.envrc || echo protected-refused; exit 3`)
	cmd.Dir = filepath.Join(s.dir, "sub")
	cmd.Env = []string{"SERVED_TEST=passed", "PATH=/usr/bin:/bin"}
	cmd.Stdin = in
	return cmd
}

// check asserts that the program ran as it would have, confined as
// before, and returns the lines after its input: what more printed
// first.
func (s served) check(t *testing.T, out string, werr error) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.GreaterOrEqual(t, len(lines), 5, out)
	assert.Equal(t, filepath.Join(s.dir, "sub"), lines[0])
	assert.Equal(t, "passed", lines[1])
	assert.Equal(t, "from stdin", lines[2])
	assert.Contains(t, out, "outside-refused")
	assert.Contains(t, out, "protected-refused")
	assert.NoFileExists(t, filepath.Join(s.outside, "f"))
	data, err := os.ReadFile(filepath.Join(s.dir, ".envrc"))
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(data))
	var ee *exec.ExitError
	require.True(t, errors.As(werr, &ee), "%v", werr)
	assert.Equal(t, 3, ee.ExitCode())
	return lines[3:]
}

// Without root, a long-lived caller's next program starts in a helper
// started ahead: it runs as the program would have — in its directory,
// with its environment, input, output and exit status — and confined
// as before. As root no helper is started ahead: there is none to save.
func TestZygoteServesTheNextProgram(t *testing.T) {
	withHelpersAhead(t)
	s := newServed(t)
	spec := s.spec
	b := openBox(t, spec)
	z := readyZygote(t, b, false)
	t.Logf("root %v, user namespaces %v", b.root, b.userns)
	if b.root || !b.userns {
		assert.Nil(t, z, "a helper started ahead where programs need none")
		return
	}
	require.NotNil(t, z)

	used := zygotesUsed.Load()
	out, werr := runOut(t, b, s.command(t, ":"), StartOptions{})
	b.KeepReady(false)
	assert.Equal(t, used+1, zygotesUsed.Load(), "the helper started ahead ran it")
	s.check(t, out, werr)

	// The next one is ready again, and serves one program
	// only: a third program starts in a fresh one.
	next := readyZygote(t, b, false)
	require.NotNil(t, next)
	assert.NotSame(t, z, next)
	out, werr = runOut(t, b, command(spec, "/bin/echo", "again"), StartOptions{})
	require.NoError(t, werr)
	assert.Equal(t, "again\n", out)
	assert.Equal(t, used+2, zygotesUsed.Load())
}

// A helper started ahead is not used once the box's world changed: a
// protected name made since has no read-only bind in its root. The
// program then starts in a new helper, which binds it.
func TestZygoteIsNotUsedAfterTheWorldChanged(t *testing.T) {
	withHelpersAhead(t)
	dir := t.TempDir()
	spec := Spec{ReadWrite: []string{dir}, Protected: []Protected{{Path: filepath.Join(dir, ".claude"), Dir: true}}}
	b := openBox(t, spec)
	z := readyZygote(t, b, false)
	if b.root || !b.userns {
		assert.Nil(t, z)
		return
	}
	require.NotNil(t, z)
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".claude"), 0o755))
	used := zygotesUsed.Load()
	out, _ := runOut(t, b, command(spec, "/bin/sh", "-c", "echo x > .claude/settings.json || echo refused"), StartOptions{})
	assert.Equal(t, used, zygotesUsed.Load(), "the helper started before .claude existed was used")
	assert.Contains(t, out, "refused")
	assert.NoFileExists(t, filepath.Join(dir, ".claude", "settings.json"))
}

// A program granted the network, or given streams that are not files,
// starts as before, not in a helper started ahead.
func TestZygoteOnlyForWhatItCanCarry(t *testing.T) {
	cmd := exec.Command("/bin/true")
	cmd.Dir = "/"
	assert.True(t, fitsAhead(cmd, false))
	assert.False(t, fitsAhead(cmd, true), "network")
	cmd.Stdout = &strings.Builder{}
	assert.False(t, fitsAhead(cmd, false), "a stream that is not a file")
	cmd.Stdout = nil
	cmd.ExtraFiles = []*os.File{os.Stdin}
	assert.False(t, fitsAhead(cmd, false), "more descriptors")
}

// A helper started ahead waits for a quiet moment: while requests keep
// beginning it does not start (its start would take a CPU from them),
// and it starts once they stop — or at once when a program needs it.
func TestZygoteWaitsForAQuietMoment(t *testing.T) {
	saved := directStart
	withHelpersAhead(t)
	dir := t.TempDir()
	b := openBox(t, Spec{ReadWrite: []string{dir}})
	echo := func(word string) *exec.Cmd {
		cmd := exec.Command("/bin/echo", word)
		cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin"}
		return cmd
	}
	busy := time.Now().Add(60 * time.Millisecond)
	NoteRequest()
	b.KeepReady(false)
	b.zyg.mu.Lock()
	z := b.zyg.ready[0]
	b.zyg.mu.Unlock()
	if b.root || !b.userns {
		assert.Nil(t, z, "a helper started ahead where programs need none")
		return
	}
	require.NotNil(t, z)
	// A sleep that overran into a quiet moment (a loaded machine) lets
	// the helper start, rightly: the assertion holds only without one.
	var longest time.Duration
	for last := time.Now(); time.Now().Before(busy); {
		NoteRequest()
		time.Sleep(200 * time.Microsecond)
		now := time.Now()
		longest = max(longest, now.Sub(last))
		last = now
	}
	select {
	case <-z.ready:
		if longest < zygoteQuiet {
			t.Fatalf("the helper started while requests kept beginning (at most %v apart)", longest)
		}
	default:
	}
	select {
	case <-z.ready:
		require.NoError(t, z.err)
	case <-time.After(5 * time.Second):
		t.Fatal("the helper did not start once requests stopped")
	}

	out, err := runOut(t, b, echo("ready"), StartOptions{})
	require.NoError(t, err)
	assert.Equal(t, "ready\n", out)

	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				NoteRequest()
			}
		}
	}()
	for _, direct := range []bool{false, saved} {
		// A program that needs the helper does not wait for quiet: it
		// starts the helper at once, or, where programs start directly
		// (a helper started before they could), starts directly and the
		// helper is dropped.
		directStart = false
		b.KeepReady(false)
		directStart = direct
		b.zyg.mu.Lock()
		z := b.zyg.ready[0]
		b.zyg.mu.Unlock()
		require.NotNil(t, z)
		used, directly := zygotesUsed.Load(), directStarts.Load()
		out, err = runOut(t, b, echo("now"), StartOptions{})
		require.NoError(t, err)
		assert.Equal(t, "now\n", out)
		if direct {
			assert.Equal(t, used, zygotesUsed.Load(), "no helper ran it")
			assert.Equal(t, directly+1, directStarts.Load(), "started directly")
			assert.True(t, z.dropped.Load(), "the helper not started is dropped")
		} else {
			assert.Equal(t, used+1, zygotesUsed.Load(), "the waiting helper ran it")
		}
	}
}

// Helpers start as the program UseHelperProgram names (vtexec-serve
// names the vtexec beside it), held open: a file put in its place later
// is not the one started. As root no helper starts programs.
func TestHelpersStartAsTheProgramNamed(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	data, err := os.ReadFile(self)
	require.NoError(t, err)
	named := filepath.Join(t.TempDir(), "named-helper")
	require.NoError(t, os.WriteFile(named, data, 0o755))
	f, err := os.Open(named)
	require.NoError(t, err)
	require.NoError(t, UseHelperProgram(f))
	f.Close()
	t.Cleanup(func() {
		if fd := helperProgram.Swap(nil); fd != nil {
			syscall.Close(*fd)
		}
	})
	// Something else in its place: not what starts.
	require.NoError(t, os.WriteFile(named+".new", []byte("#!/bin/sh\nexit 99\n"), 0o755))
	require.NoError(t, os.Rename(named+".new", named))

	withHelpersAhead(t)
	s := newServed(t)
	b := openBox(t, s.spec)
	z := readyZygote(t, b, false)
	if b.root || !b.userns {
		assert.Nil(t, z, "a helper started ahead where programs need none")
		out, werr := runOut(t, b, s.command(t, ":"), StartOptions{})
		s.check(t, out, werr)
		return
	}
	require.NotNil(t, z)
	exe, err := os.Readlink("/proc/" + strconv.Itoa(z.cmd.Process.Pid) + "/exe")
	require.NoError(t, err)
	assert.Equal(t, named+" (deleted)", exe, "the helper is the file named, as it was when named")
	out, werr := runOut(t, b, s.command(t, ":"), StartOptions{})
	s.check(t, out, werr)
	// A program that starts in a helper of its own, too.
	out, werr = runOut(t, b, s.command(t, ":"), StartOptions{})
	s.check(t, out, werr)
}
