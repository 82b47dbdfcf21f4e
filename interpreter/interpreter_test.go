//go:build !windows

package interpreter

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// fakeEngine allows a few programs on paths inside ws and runs them
// directly; everything else is refused as the engine would.
type fakeEngine struct {
	ws      string
	allowed []string
	mu      sync.Mutex
	checked [][]string
}

func (e *fakeEngine) inside(p string) bool {
	p = filepath.Clean(p)
	return p == e.ws || strings.HasPrefix(p, e.ws+"/")
}

// prepared is what the fake check hands to Exec.
type prepared struct {
	argv []string
	dir  string
	env  []string
}

func (e *fakeEngine) hooks() Hooks {
	return Hooks{
		Check: func(_ context.Context, argv []string, dir string, env []string) Verdict {
			e.mu.Lock()
			e.checked = append(e.checked, slices.Clone(argv))
			e.mu.Unlock()
			if !slices.Contains(e.allowed, argv[0]) {
				return Verdict{Code: "not_allowed", Reason: argv[0] + " is not on the allowlist", Hint: "h"}
			}
			for _, a := range argv[1:] {
				if strings.HasPrefix(a, "/") && !e.inside(a) {
					return Verdict{Code: "outside_workspace", Reason: argv[0] + ": " + a + " is outside the workspace", Hint: "h"}
				}
			}
			return Verdict{Allow: true, Prepared: prepared{argv: argv, dir: dir, env: env}}
		},
		Exec: func(ctx context.Context, p any, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
			c := p.(prepared)
			cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
			cmd.Dir, cmd.Env = c.dir, append([]string{"PATH=/usr/bin:/bin", "LC_ALL=C"}, c.env...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode(), nil
			}
			return 0, err
		},
		Open: func(_ context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
			if !e.inside(path) {
				return nil, &Stop{Argv: []string{path}, Code: "outside_workspace", Reason: path + " is outside the workspace"}
			}
			return os.OpenFile(path, flag, perm)
		},
		Inside: e.inside,
		Builtin: func(_ context.Context, argv []string, _ string) Verdict {
			switch argv[0] {
			case "echo", "printf", "true", "false", "test", "[", "pwd":
				return Verdict{Allow: true}
			case "command", "type":
				if len(argv) == 3 && (argv[1] == "-v" || argv[1] == "-t") {
					return Verdict{Allow: true}
				}
			}
			return Verdict{Code: CodeBuiltin, Reason: argv[0] + " is not run", Hint: "h"}
		},
	}
}

func newFake(t *testing.T) *fakeEngine {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for name, body := range map[string]string{"a.txt": "one\ntwo\n", "b.txt": "three\n", "notes.md": "# n\n", "sub/c.txt": "four\n"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644))
	}
	return &fakeEngine{ws: ws, allowed: []string{"cat", "wc", "ls", "sort", "head", "grep", "seq", "tr"}}
}

func (e *fakeEngine) run(t *testing.T, src string, lim Limits) (Outcome, string, string) {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	require.NoError(t, err, src)
	var out, errb lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o, err := Run(ctx, Request{File: f, Dir: e.ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Limits: lim}, e.hooks())
	require.NoError(t, err, src)
	return o, out.String(), errb.String()
}

// lockedBuffer is a buffer the commands of a pipeline may write at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// bash runs src in the same directory, for the expected output.
func bash(t *testing.T, dir, src string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", src)
	cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	return string(out), code
}

// The forms agents write whose words are known only at run time run as
// in bash, every program checked with its final argv.
func TestRunTimeFormsRunAsInBash(t *testing.T) {
	e := newFake(t)
	for _, src := range []string{
		`wc -l $(ls *.txt)`,
		`n=$(cat a.txt | wc -l); echo "lines: $n"`,
		`cat missing.txt 2>/dev/null; echo "exit: $?"`,
		`grep -q three b.txt || echo "not found: $?"`,
		`cat a.txt | while read -r l; do echo "[$l]"; done`,
		`for f in $(ls); do case $f in *.txt) echo "txt $f";; *) echo "other $f";; esac; done`,
		`x=3; y=$((x * 2)); echo "$x $y ${x}0 ${undefined:-default}"`,
		`cd sub && cat c.txt && ls`,
		`seq 1 5 | sort -r | head -n 2`,
		`if [ -f a.txt ]; then echo yes; else echo no; fi; test -d sub && echo dir`,
		`for i in 1 2 3; do if [ $i -eq 2 ]; then continue; fi; echo $i; done`,
		`files=$(ls *.txt | wc -l); [ "$files" -gt 1 ] && echo "$files files"`,
	} {
		o, out, _ := e.run(t, src, Limits{})
		want, code := bash(t, e.ws, src)
		assert.Nil(t, o.Stopped, src)
		assert.Equal(t, want, out, src)
		assert.Equal(t, code, o.Exit, src)
	}
	assert.Contains(t, e.checked, []string{"wc", "-l", "a.txt", "b.txt"}, "wc was checked with the words the substitution gave")
}

// A refused command ends the request where it stands: what ran before
// it is reported, nothing after it runs.
func TestRefusalStopsTheRequest(t *testing.T) {
	e := newFake(t)
	o, out, _ := e.run(t, `cat b.txt; rm -rf sub; cat a.txt`, Limits{})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, []string{"rm", "-rf", "sub"}, o.Stopped.Argv)
	assert.Equal(t, "not_allowed", o.Stopped.Code)
	assert.Equal(t, 126, o.Exit)
	assert.Equal(t, "three\n", out, "only what ran before the refusal")
	assert.Equal(t, [][]string{{"cat", "b.txt"}}, o.Ran)
	assert.DirExists(t, filepath.Join(e.ws, "sub"))

	// Words from a substitution are checked where they are used.
	o, _, _ = e.run(t, `cat $(echo /etc/passwd)`, Limits{})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, "outside_workspace", o.Stopped.Code)
	assert.Equal(t, []string{"cat", "/etc/passwd"}, o.Stopped.Argv)

	// A refusal inside a substitution or a pipeline stops everything.
	o, out, _ = e.run(t, `echo "$(rm x)"; echo after`, Limits{})
	require.NotNil(t, o.Stopped)
	assert.NotContains(t, out, "after")
	o, out, _ = e.run(t, `cat a.txt | rm x | wc -l; echo after`, Limits{})
	require.NotNil(t, o.Stopped)
	assert.NotContains(t, out, "after")
}

// Builtins that would run what the check never sees, or change what
// later programs receive, are refused; so are functions and background
// jobs, before anything runs.
func TestBuiltinsAreModelledOrRefused(t *testing.T) {
	e := newFake(t)
	for _, src := range []string{
		`eval "cat a.txt"`, `source x.sh`, `. x.sh`, `exec cat a.txt`, `trap 'rm -rf /' EXIT`,
		`alias ls='rm -rf .'`, `builtin cd /`, `command cat a.txt`, `set -o posix`, `shopt -s extglob`,
		`pushd sub`, `umask 000`, `cd /`, `cd ..`,
	} {
		o, out, _ := e.run(t, `echo before; `+src+`; echo after`, Limits{})
		require.NotNil(t, o.Stopped, src)
		assert.Equal(t, "before\n", out, src)
	}
	for _, src := range []string{`f() { cat a.txt; }; f`, `cat a.txt &`, `export X=1; cat a.txt`, `declare -x X=1`, `cat <(ls)`} {
		o, out, _ := e.run(t, `echo before; `+src, Limits{})
		require.NotNil(t, o.Stopped, src)
		assert.Empty(t, out, "%s: nothing runs", src)
	}
	o, out, _ := e.run(t, `command -v cat; type -t cd; set -e; echo ok`, Limits{})
	assert.Nil(t, o.Stopped)
	assert.Contains(t, out, "ok")
}

// The request's reach is bounded: commands run, a substitution's output,
// the words of one command, NUL bytes, redirects and globs outside.
func TestRequestIsBounded(t *testing.T) {
	e := newFake(t)
	o, _, _ := e.run(t, `while true; do :; done`, Limits{Commands: 100})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, CodeCommands, o.Stopped.Code)

	o, _, _ = e.run(t, `x=$(seq 1 100000); echo done`, Limits{SubstOutput: 1000})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, CodeSubstOutput, o.Stopped.Code)

	o, _, _ = e.run(t, `cat $(seq 1 10000)`, Limits{})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, CodeWords, o.Stopped.Code)

	// Loops that run no command are bounded too, all loops together.
	o, out, _ := e.run(t, `n=0; while [[ 1 ]]; do n=$((n+1)); done; echo after`, Limits{Iterations: 500})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, CodeIterations, o.Stopped.Code)
	assert.Empty(t, out)
	o, out, _ = e.run(t, `for i in 1 2 3; do for j in 1 2 3; do :; done; done; echo after`, Limits{Iterations: 12})
	assert.Nil(t, o.Stopped, "3 + 9 iterations")
	assert.Equal(t, "after\n", out)
	o, _, _ = e.run(t, `for i in 1 2 3; do for j in 1 2 3; do :; done; done; echo after`, Limits{Iterations: 11})
	require.NotNil(t, o.Stopped)

	// A substitution's NUL bytes are dropped, as bash drops them: no
	// argument ever holds one.
	e.checked = nil
	o, _, _ = e.run(t, `cat "$(printf 'a.txt\0b')"`, Limits{})
	assert.Nil(t, o.Stopped)
	require.Len(t, e.checked, 1)
	assert.Equal(t, []string{"cat", "a.txtb"}, e.checked[0])

	o, out, _ = e.run(t, `echo hi > /tmp/vtexec-interpreter-probe; echo after`, Limits{})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, "outside_workspace", o.Stopped.Code)
	assert.NotContains(t, out, "after")
	assert.NoFileExists(t, "/tmp/vtexec-interpreter-probe")

	o, out, _ = e.run(t, `echo /etc/pass*`, Limits{})
	assert.Nil(t, o.Stopped)
	assert.Equal(t, "/etc/pass*\n", out, "a glob outside the workspace matches nothing")

	o, out, _ = e.run(t, `echo hi > out.txt && cat out.txt`, Limits{})
	assert.Nil(t, o.Stopped)
	assert.Equal(t, "hi\n", out)
}

// A value known only at run time that makes a bracket expression the
// shell library cannot compile ([N-\*]: a range ending in an escaped
// character) stops the request with a refusal; it does not end the
// process.
func TestUnreadablePatternStopsTheRequest(t *testing.T) {
	e := newFake(t)
	o, out, _ := e.run(t, `cat b.txt; p=$(echo '[N-\*]'); cat $p; cat a.txt`, Limits{})
	require.NotNil(t, o.Stopped)
	assert.Equal(t, "parse_error", o.Stopped.Code)
	assert.Contains(t, o.Stopped.Reason, "cannot be read")
	assert.Equal(t, 126, o.Exit)
	assert.Equal(t, "three\n", out, "only what ran before it")
	assert.Equal(t, [][]string{{"cat", "b.txt"}, {"echo", `[N-\*]`}}, o.Ran)
}
