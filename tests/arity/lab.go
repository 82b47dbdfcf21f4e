package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vtexec/vtexec/validators"
)

// lab is the throwaway directory the programs run in: a fixture of files
// for most programs and a small repository for git, copied afresh for
// every run so that no run sees what another wrote.
type lab struct {
	root     string
	fixture  string // files every non-git run starts with
	repo     string // the repository every git run starts from
	env      []string
	deadline time.Duration
}

// fixtureFiles are the files of the fixture. "2" is a word that is both a
// valid count and an existing file; PROBEa (not JSON, an undefined jq
// name) and PROBEb and PROBEc (JSON) serve jq and find.
var fixtureFiles = map[string]string{
	"2":         "2\n",
	"f1":        "alpha\nbeta\n",
	"d/inner":   "x\n",
	"PROBEa":    "PROBEa\n",
	"PROBEb":    "1\n",
	"PROBEc":    "1\n",
	"empty.txt": "",
}

func newLab(root string) (*lab, error) {
	l := &lab{root: root, fixture: filepath.Join(root, "fixture"), repo: filepath.Join(root, "repo"), deadline: 5 * time.Second}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	l.env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LC_ALL=C", "TZ=UTC", "TERM=dumb",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=probe", "GIT_AUTHOR_EMAIL=probe@example.invalid",
		"GIT_COMMITTER_NAME=probe", "GIT_COMMITTER_EMAIL=probe@example.invalid",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
		"GIT_EDITOR=false", "GIT_SEQUENCE_EDITOR=false", "EDITOR=false", "VISUAL=false",
		"GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=false", "SSH_ASKPASS=false",
		"GIT_SSH_COMMAND=false", "GIT_ALLOW_PROTOCOL=file", "GIT_OPTIONAL_LOCKS=0",
	}
	for name, content := range fixtureFiles {
		path := filepath.Join(l.fixture, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	// The repository: two commits on main, a side branch with one, a tag,
	// a subdirectory PROBEd (an existing directory for git -C) and an
	// untracked file.
	steps := [][]string{
		{"init", "-q", "--template=", "-b", "main", l.repo},
		{"-C", l.repo, "config", "user.name", "probe"},
		{"-C", l.repo, "config", "user.email", "probe@example.invalid"},
	}
	for _, s := range steps {
		if err := l.git(s...); err != nil {
			return nil, err
		}
	}
	write := func(name, content string) error {
		path := filepath.Join(l.repo, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(content), 0o644)
	}
	if err := write("a.txt", "one\ntwo\nthree\n"); err != nil {
		return nil, err
	}
	if err := write("PROBEd/keep", "k\n"); err != nil {
		return nil, err
	}
	for _, s := range [][]string{
		{"add", "."}, {"commit", "-qm", "first"}, {"tag", "v1"},
		{"switch", "-qc", "side"},
	} {
		if err := l.git(append([]string{"-C", l.repo}, s...)...); err != nil {
			return nil, err
		}
	}
	if err := write("b.txt", "side\n"); err != nil {
		return nil, err
	}
	for _, s := range [][]string{{"add", "."}, {"commit", "-qm", "side"}, {"switch", "-q", "main"}} {
		if err := l.git(append([]string{"-C", l.repo}, s...)...); err != nil {
			return nil, err
		}
	}
	if err := write("a.txt", "one\ntwo\nthree\nfour\n"); err != nil {
		return nil, err
	}
	if err := l.git("-C", l.repo, "commit", "-qam", "second"); err != nil {
		return nil, err
	}
	// A stash, for git stash show and list.
	if err := write("a.txt", "stashed\n"); err != nil {
		return nil, err
	}
	if err := l.git("-C", l.repo, "stash", "-q"); err != nil {
		return nil, err
	}
	if err := write("untracked.txt", "u\n"); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *lab) git(args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Env = l.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// prober runs programs for one worker, in a directory of its own.
type prober struct {
	lab *lab
	dir string
}

func (l *lab) prober(n int) *prober {
	return &prober{lab: l, dir: filepath.Join(l.root, fmt.Sprintf("run%d", n))}
}

// run is what one run of a program did.
type run struct {
	argv     []string
	exit     int
	stdout   string
	stderr   string
	timedOut bool
}

// out is stdout and stderr together.
func (r run) out() string { return r.stdout + r.stderr }

// same reports whether two runs did the same.
func (r run) same(o run) bool {
	return r.exit == o.exit && r.stdout == o.stdout && r.stderr == o.stderr && r.timedOut == o.timedOut
}

// brief is a one-line summary for the report.
func (r run) brief() string {
	out := strings.TrimSpace(r.out())
	if i := strings.IndexByte(out, '\n'); i >= 0 {
		out = out[:i] + " …"
	}
	if len(out) > 160 {
		out = out[:160] + "…"
	}
	s := fmt.Sprintf("`%s` → exit %d", strings.Join(r.argv, " "), r.exit)
	if r.timedOut {
		s += " (timed out)"
	}
	if out != "" {
		s += ": " + out
	}
	return s
}

// exec runs argv in a fresh copy of the fixture (or, for a program the
// repository configures — git —, of the repository), with standard input from /dev/null, a scrubbed
// environment and a deadline that kills the whole process group. A run
// cut by the deadline is run again with four times as long: on a loaded
// machine a cold mypy can take longer than the deadline, and a run cut
// short is not the program's answer.
func (p *prober) exec(argv ...string) run {
	r := p.execWithin(p.lab.deadline, argv)
	if r.timedOut {
		r = p.execWithin(4*p.lab.deadline, argv)
	}
	return r
}

func (p *prober) execWithin(deadline time.Duration, argv []string) run {
	if err := os.RemoveAll(p.dir); err != nil {
		fatal(err)
	}
	src := p.lab.fixture
	if validators.ProfileOf(argv[0]).ConfiguredByRepository {
		src = p.lab.repo
	}
	if err := copyTree(src, p.dir); err != nil {
		fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = p.lab.env
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := run{argv: argv, exit: cmd.ProcessState.ExitCode()}
	if err != nil && cmd.ProcessState == nil {
		r.exit = -1
		r.stderr = err.Error()
	}
	r.timedOut = ctx.Err() != nil
	clean := func(s string) string {
		if len(s) > 64<<10 {
			s = s[:64<<10]
		}
		return strings.ReplaceAll(s, p.dir, "$DIR")
	}
	r.stdout, r.stderr = clean(r.stdout+stdout.String()), clean(r.stderr+stderr.String())
	return r
}

// copyTree copies a directory of regular files and directories.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}
