//go:build !windows

package runner

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// gitLab is a workspace holding a git repository whose configuration
// points every program-running key the environment neutralises at a
// script that leaves a marker file, and the commands to run git there.
type gitLab struct {
	t       *testing.T
	ws      *workspace.Workspace
	markers string // directory the scripts touch their markers in
	bin     string // directory of the scripts
	environ []string
}

// newGitLab builds the repository with two commits and a change in the
// working tree. environ is the caller's environment Run filters.
func newGitLab(t *testing.T, environ ...string) *gitLab {
	t.Helper()
	_, err := exec.LookPath("git")
	require.NoError(t, err, "git is needed (a clone has it; .ci/run installs it)")
	outside := t.TempDir()
	l := &gitLab{t: t, ws: newWS(t), markers: join(outside, "markers"), bin: join(outside, "bin"),
		environ: append([]string{"HOME=" + outside}, environ...)}
	require.NoError(t, os.MkdirAll(l.markers, 0o755))
	require.NoError(t, os.MkdirAll(join(l.bin, "hooks"), 0o755))
	root := l.ws.Root()
	l.git("init", "-q", ".")
	l.git("config", "user.email", "a@example.com")
	l.git("config", "user.name", "a")
	require.NoError(t, os.WriteFile(join(root, "a.txt"), []byte("one\n"), 0o644))
	l.git("add", "a.txt")
	l.git("commit", "-qm", "one")
	require.NoError(t, os.WriteFile(join(root, "a.txt"), []byte("one\ntwo\n"), 0o644))
	l.git("commit", "-qam", "two")
	require.NoError(t, os.WriteFile(join(root, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	return l
}

// script writes an executable that touches markers/name and succeeds.
func (l *gitLab) script(name string) string {
	p := join(l.bin, name)
	body := fmt.Sprintf("#!/bin/sh\ntouch '%s'\nexit 0\n", join(l.markers, name))
	require.NoError(l.t, os.WriteFile(p, []byte(body), 0o755))
	return p
}

// git runs git directly (set-up only), with no hardening.
func (l *gitLab) git(args ...string) {
	l.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = l.ws.Root()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	require.NoError(l.t, err, "git %v: %s", args, out)
}

// appendConfig adds text to .git/config.
func (l *gitLab) appendConfig(text string) {
	f, err := os.OpenFile(join(l.ws.Root(), ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(l.t, err)
	_, err = f.WriteString(text)
	require.NoError(l.t, err)
	require.NoError(l.t, f.Close())
}

// run runs git with args through Run, as vtexec would, in dir.
func (l *gitLab) run(dir string, args ...string) *Result {
	l.t.Helper()
	ws := l.ws.Clone()
	require.NoError(l.t, ws.Chdir(dir))
	return runPlan(l.t, planOf(step(plan.Seq, command(l.t, dir, append([]string{"git"}, args...)...))), ws,
		Options{Environ: l.environ})
}

// fired returns the markers left so far.
func (l *gitLab) fired() []string {
	entries, err := os.ReadDir(l.markers)
	require.NoError(l.t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestEnvNeutralisesGitConfig checks, with git itself, that every key of
// gitConfig and every editor and proxy variable of forcedEnv wins over a
// hostile .git/config: none of the programs it names runs.
func TestEnvNeutralisesGitConfig(t *testing.T) {
	l := newGitLab(t)
	// A commit carrying a (bogus) signature, so that log.showSignature
	// would have something to hand to gpg.program.
	signCommit(t, l)
	for _, h := range []string{"pre-commit", "commit-msg", "post-commit", "post-checkout", "reference-transaction", "pre-rebase", "post-rewrite"} {
		hook := l.script("hook-" + h)
		require.NoError(t, os.Symlink(hook, join(l.bin, "hooks", h)))
		require.NoError(t, os.Symlink(hook, join(l.ws.Root(), ".git", "hooks", h)))
	}
	l.appendConfig(fmt.Sprintf(`[core]
	fsmonitor = %s
	hooksPath = %s
	editor = %s
	askPass = %s
	gitProxy = %s
	pager = %s
[pager]
	log = %s
	status = %s
[sequence]
	editor = %s
[protocol "ext"]
	allow = always
[log]
	showSignature = true
[gpg]
	program = %s
`, l.script("fsmonitor"), join(l.bin, "hooks"), l.script("editor"), l.script("askpass"), l.script("gitproxy"),
		l.script("pager"), l.script("pager-log"), l.script("pager-status"), l.script("sequence-editor"), l.script("gpg")))

	// Without the environment the hostile configuration runs: the test
	// would prove nothing if it did not.
	direct := exec.Command("git", "status")
	direct.Dir = l.ws.Root()
	direct.Env = []string{l.environ[0], "PATH=" + plan.TrustedPath}
	_ = direct.Run()
	require.Contains(t, l.fired(), "fsmonitor", "the unhardened control run should fire the fsmonitor")
	require.NoError(t, os.Remove(join(l.markers, "fsmonitor")))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()

	root := l.ws.Root()
	for _, args := range [][]string{
		{"status"},
		{"diff"},
		{"log", "-p"},
		{"log", "-1"},
		{"show"},
		{"commit", "-qam", "three"},
		{"commit", "--amend"},
		{"rebase", "-i", "HEAD~1"},
		{"checkout", "-q", "-b", "other"},
		{"ls-remote", "git://127.0.0.1:1/x"},
		{"ls-remote", "ext::" + l.script("ext")},
		{"ls-remote", srv.URL + "/x.git"},
	} {
		res := l.run(root, args...)
		assert.Empty(t, l.fired(), "git %v ran a program from .git/config; stderr: %s", args, res.Stderr)
	}
	res := l.run(root, "log", "-1", "--format=%s")
	assert.Equal(t, "three\n", res.Stdout, "commit and amend (editor true) must work: %s", res.Stderr)
	res = l.run(root, "ls-remote", "ext::"+join(l.bin, "ext"))
	assert.Contains(t, res.Stderr, "transport 'ext' not allowed")
}

// signCommit replaces HEAD with a copy that carries a gpgsig header.
func signCommit(t *testing.T, l *gitLab) {
	cmd := exec.Command("git", "cat-file", "commit", "HEAD")
	cmd.Dir = l.ws.Root()
	out, err := cmd.Output()
	require.NoError(t, err)
	header, body, _ := strings.Cut(string(out), "\n\n")
	signed := header + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + body
	p := join(t.TempDir(), "commit")
	require.NoError(t, os.WriteFile(p, []byte(signed), 0o644))
	cmd = exec.Command("git", "hash-object", "-t", "commit", "-w", p)
	cmd.Dir = l.ws.Root()
	out, err = cmd.Output()
	require.NoError(t, err)
	l.git("update-ref", "HEAD", strings.TrimSpace(string(out)))
}

// TestEnvDropsCallerGitVariables checks that git run through Run sees
// none of the caller's GIT_* variables.
func TestEnvDropsCallerGitVariables(t *testing.T) {
	evilExec := t.TempDir()
	l := newGitLab(t,
		"GIT_DIR=/nonexistent/.git",
		"GIT_WORK_TREE=/",
		"GIT_EXEC_PATH="+evilExec,
		"GIT_CONFIG_GLOBAL=/nonexistent/gitconfig",
		"GIT_CONFIG_PARAMETERS='core.fsmonitor'='"+filepath.Join(evilExec, "x")+"'",
		"GIT_INDEX_FILE=/nonexistent/index",
	)
	l.environ = append(l.environ,
		"GIT_SSH_COMMAND="+l.script("ssh-command"),
		"GIT_SSH="+l.script("ssh"),
		"GIT_EXTERNAL_DIFF="+l.script("external-diff"),
		"GIT_ASKPASS="+l.script("askpass"),
		"GIT_PAGER="+l.script("pager"),
		"GIT_EDITOR="+l.script("editor"),
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0="+l.script("fsmonitor"),
	)
	root := l.ws.Root()
	res := l.run(root, "rev-parse", "--absolute-git-dir", "--show-toplevel")
	assert.Equal(t, join(root, ".git")+"\n"+root+"\n", res.Stdout, res.Stderr)
	res = l.run(root, "--exec-path")
	assert.NotContains(t, res.Stdout, evilExec)
	res = l.run(root, "var", "GIT_EDITOR")
	assert.Equal(t, "true\n", res.Stdout)
	for _, args := range [][]string{
		{"status"}, {"diff"}, {"commit", "--amend"},
		{"ls-remote", "ssh://127.0.0.1:1/x"},
	} {
		res := l.run(root, args...)
		assert.Empty(t, l.fired(), "git %v used a caller variable; stderr: %s", args, res.Stderr)
	}
}

// TestEnvRefusesDiscoveredBareRepository checks safe.bareRepository: a
// directory in the workspace that looks like a bare repository is not
// used unless named with --git-dir.
func TestEnvRefusesDiscoveredBareRepository(t *testing.T) {
	l := newGitLab(t)
	bare := join(l.ws.Root(), "inner.git")
	l.git("init", "-q", "--bare", bare)
	res := l.run(bare, "rev-parse", "--git-dir")
	assert.NotEqual(t, 0, res.ExitCode)
	assert.Contains(t, res.Stderr, "safe.bareRepository")
	res = l.run(bare, "--git-dir=.", "rev-parse", "--is-bare-repository")
	assert.Equal(t, "true\n", res.Stdout, res.Stderr)
}
