package validators

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// gitSetup runs git for a test's set-up, ignoring every configuration
// but the repository's.
func gitSetup(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// gitHermetic gives the test a HOME of its own, outside any workspace, so
// that the user's git configuration plays no part.
func gitHermetic(t *testing.T) string {
	t.Helper()
	_, err := exec.LookPath("git")
	require.NoError(t, err, "git is needed (a clone has it; .ci/run installs it)")
	home := t.TempDir()
	t.Setenv("HOME", home)
	return home
}

// gitRepoDir makes a repository with two commits and a change: a.txt,
// src/c.go, docs/d.md, and a symlink out -> /etc.
func gitRepoDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for name, body := range map[string]string{"a.txt": "one\n", "src/c.go": "package c\n", "docs/d.md": "d\n"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.Symlink("/etc", filepath.Join(dir, "out")))
	gitSetup(t, dir, "init", "-q", "-b", "main", ".")
	gitSetup(t, dir, "add", "a.txt", "src", "docs")
	gitSetup(t, dir, "commit", "-qm", "one")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644))
	gitSetup(t, dir, "commit", "-qam", "two")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	return dir
}

func gitWS(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(dir)
	require.NoError(t, err)
	return ws
}

// gitAppendConfig adds text to the repository's .git/config.
func gitAppendConfig(t *testing.T, dir, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// gitFinding runs the git validator and returns its finding (nil if
// allowed).
func gitFinding(t *testing.T, ws *workspace.Workspace, argv ...string) *Finding {
	t.Helper()
	err := checkGit(&Call{Argv: append([]string{"git"}, argv...), WS: ws})
	if err == nil {
		return nil
	}
	var f *Finding
	require.True(t, errors.As(err, &f), "not a finding: %v", err)
	assert.NotEmpty(t, f.Reason)
	assert.NotEmpty(t, f.Hint)
	return f
}

func TestGitCommands(t *testing.T) {
	gitHermetic(t)
	ws := gitWS(t, gitRepoDir(t))
	cases := []vcase{
		// Reading: runs.
		{args("git", "status"), ""},
		{args("git", "status", "-sb", "--porcelain=v2", "--untracked-files=all", "--", "src"), ""},
		{args("git", "log", "--oneline", "-n", "5", "--graph", "--decorate", "--all"), ""},
		{args("git", "log", "-5", "-p", "--stat", "--since=2.weeks", "--author", "a", "--grep", "fix", "-S", "one", "-G", "o+"), ""},
		{args("git", "log", "--format=%H %s", "--pretty=oneline", "--name-only", "--name-status", "--word-diff=color", "-U3", "--color=always", "--no-color"), ""},
		{args("git", "log", "main..HEAD", "--", "a.txt", ":(top)src", ":/docs", ":!docs"), ""},
		{args("git", "log", "-L", "1,2:a.txt", "--follow", "a.txt"), ""},
		{args("git", "diff"), ""},
		{args("git", "diff", "--cached", "--stat"), ""},
		{args("git", "diff", "--staged", "HEAD~1", "--", "a.txt"), ""},
		{args("git", "diff", "--no-ext-diff", "--no-textconv", "-w", "--ignore-blank-lines", "-M50%"), ""},
		{args("git", "diff", "--no-index", "a.txt", "src/c.go"), ""},
		{args("git", "show", "--stat", "HEAD"), ""},
		{args("git", "show", "HEAD:a.txt"), ""},
		{args("git", "-C", "src", "show", "HEAD:../a.txt"), ""},
		{args("git", "show", "main~1:./docs/d.md"), ""},
		{args("git", "branch"), ""},
		{args("git", "branch", "-a", "-vv"), ""},
		{args("git", "branch", "--show-current"), ""},
		{args("git", "branch", "--contains"), ""},
		{args("git", "branch", "--merged", "main", "--no-merged"), ""},
		{args("git", "branch", "--list", "feat*"), ""},
		{args("git", "tag"), ""},
		{args("git", "tag", "-l", "v*"), ""},
		{args("git", "tag", "-n5", "--sort=-creatordate"), ""},
		{args("git", "blame", "a.txt"), ""},
		{args("git", "blame", "-L", "1,2", "HEAD", "--", "a.txt"), ""},
		{args("git", "grep", "-n", "one"), ""},
		{args("git", "grep", "-e", "one", "--and", "-e", "two", "HEAD", "--", "src"), ""},
		{args("git", "ls-files", "-m", "-o", "--exclude-standard"), ""},
		{args("git", "ls-tree", "-r", "--name-only", "HEAD"), ""},
		{args("git", "rev-parse", "--show-toplevel", "--abbrev-ref", "HEAD"), ""},
		{args("git", "rev-parse", "--git-dir"), ""},
		{args("git", "rev-list", "--count", "HEAD"), ""},
		{args("git", "describe", "--tags", "--always", "--dirty"), ""},
		{args("git", "shortlog", "-sn", "HEAD"), ""},
		{args("git", "remote", "-v"), ""},
		{args("git", "remote"), ""},
		{args("git", "remote", "get-url", "origin"), ""},
		{args("git", "remote", "show", "-n", "origin"), ""},
		{args("git", "stash", "list"), ""},
		{args("git", "stash", "show", "-p", "stash@{0}"), ""},
		{args("git", "cat-file", "-p", "HEAD"), ""},
		{args("git", "cat-file", "-t", "HEAD"), ""},
		{args("git", "show-ref", "--heads"), ""},
		{args("git", "for-each-ref", "--format=%(refname)", "refs/heads"), ""},
		{args("git", "merge-base", "HEAD", "main"), ""},
		{args("git", "symbolic-ref", "--short", "HEAD"), ""},
		{args("git", "config", "--get", "user.name"), ""},
		{args("git", "config", "user.name"), ""},
		{args("git", "config", "--local", "--list", "--show-origin"), ""},
		{args("git", "config", "--global", "--get", "user.email"), ""},
		{args("git", "reflog"), ""},
		{args("git", "reflog", "show", "--oneline", "-5"), ""},
		{args("git", "reflog", "-5"), ""},
		{args("git", "worktree", "list"), ""},
		{args("git", "check-ignore", "-v", "a.txt"), ""},
		{args("git", "apply", "--check", "a.txt"), ""},
		{args("git", "format-patch", "--stdout", "-1"), ""},
		{args("git", "format-patch", "-1", "-o", "patches"), ""},
		{args("git", "version"), ""},
		{args("git", "--version"), ""},
		{args("git", "help", "-a"), ""},
		{args("git", "--help"), ""},
		{args("git", "log", "-h"), ""},
		{args("git", "fetch", "-h"), ""},
		{args("git"), ""},
		{args("git", "--no-pager", "log"), ""},
		{args("git", "-P", "-C", "src", "log", "--", "c.go"), ""},
		{args("git", "-C", "src", "status"), ""},
		{args("git", "--git-dir=.git", "--work-tree=.", "status"), ""},
		{args("git", "--literal-pathspecs", "--no-optional-locks", "status"), ""},
		{args("git", "bisect", "log"), ""},
		{args("git", "submodule", "status"), ""},
		{args("git", "submodule"), ""},

		// Writing: asks.
		{args("git", "add", "a.txt"), CodeGitWrites},
		{args("git", "add", "-A"), CodeGitWrites},
		{args("git", "add", "."), CodeGitWrites},
		{args("git", "stage", "src"), CodeGitWrites},
		{args("git", "commit", "-m", "x"), CodeGitWrites},
		{args("git", "commit", "-am", "x", "--no-verify"), CodeGitWrites},
		{args("git", "commit", "--amend", "--no-edit"), CodeGitWrites},
		{args("git", "commit", "-F", "a.txt"), CodeGitWrites},
		{args("git", "commit", "-F", "-"), CodeGitWrites},
		{args("git", "commit", "-S", "-m", "x"), CodeGitWrites},
		{args("git", "commit", "-m", "--", "a.txt"), CodeGitWrites},
		{args("git", "checkout", "-b", "feature"), ""}, // a new branch where HEAD is
		{args("git", "checkout", "--", "a.txt"), CodeGitWrites},
		{args("git", "checkout", "-"), CodeGitWrites},
		{args("git", "switch", "-c", "x"), ""},
		{args("git", "restore", "--staged", "a.txt"), CodeGitWrites},
		{args("git", "reset", "--hard", "HEAD~1"), CodeGitWrites},
		{args("git", "reset"), CodeGitWrites},
		{args("git", "stash"), CodeGitWrites},
		{args("git", "stash", "-u"), CodeGitWrites},
		{args("git", "stash", "push", "-m", "wip", "--", "a.txt"), CodeGitWrites},
		{args("git", "stash", "pop"), CodeGitWrites},
		{args("git", "stash", "apply", "--index"), CodeGitWrites},
		{args("git", "stash", "drop"), CodeGitWrites},
		{args("git", "stash", "clear"), CodeGitWrites},
		{args("git", "merge", "--no-ff", "feature"), CodeGitWrites},
		{args("git", "merge", "-s", "ort", "-X", "theirs", "feature"), CodeGitWrites},
		{args("git", "merge", "--abort"), CodeGitWrites},
		{args("git", "rebase", "main"), CodeGitWrites},
		{args("git", "rebase", "-i", "--autosquash", "HEAD~3"), CodeGitWrites},
		{args("git", "rebase", "--continue"), CodeGitWrites},
		{args("git", "cherry-pick", "-x", "HEAD~1"), CodeGitWrites},
		{args("git", "revert", "--no-edit", "HEAD"), CodeGitWrites},
		{args("git", "clean", "-fdx"), CodeGitWrites},
		{args("git", "clean", "-n"), CodeGitWrites},
		{args("git", "rm", "--cached", "a.txt"), CodeGitWrites},
		{args("git", "rm", "-r", "src"), CodeGitWrites},
		{args("git", "mv", "a.txt", "b.txt"), CodeGitWrites},
		{args("git", "tag", "v1"), CodeGitWrites},
		{args("git", "tag", "-a", "v1", "-m", "release"), CodeGitWrites},
		{args("git", "tag", "-d", "v1"), CodeGitWrites},
		{args("git", "branch", "feature"), CodeGitWrites},
		{args("git", "branch", "-d", "feature"), CodeGitWrites},
		{args("git", "branch", "-D", "feature"), CodeGitWrites},
		{args("git", "branch", "-m", "old", "new"), CodeGitConfigWrite},
		{args("git", "branch", "-u", "origin/main"), CodeGitConfigWrite},
		{args("git", "init"), CodeGitWrites},
		{args("git", "init", "sub"), CodeGitWrites},
		{args("git", "am", "a.txt"), CodeGitWrites},
		{args("git", "apply", "a.txt"), CodeGitWrites},
		{args("git", "apply", "--index", "-"), CodeGitWrites},
		{args("git", "config", "user.email", "a@example.com"), CodeGitConfigWrite},
		{args("git", "config", "--unset", "diff.x.textconv"), CodeGitConfigWrite},
		{args("git", "config", "core.hooksPath", ".githooks"), CodeGitConfigWrite},
		{args("git", "symbolic-ref", "HEAD", "refs/heads/x"), CodeGitWrites},
		{args("git", "reflog", "expire", "--expire=now", "--all"), CodeGitWrites},
		{args("git", "remote", "add", "upstream", "https://example.com/r.git"), CodeGitConfigWrite},
		{args("git", "remote", "rename", "a", "b"), CodeGitConfigWrite},
		{args("git", "remote", "set-url", "origin", "git@example.com:r.git"), CodeGitConfigWrite},
		{args("git", "worktree", "add", "wt", "-b", "x"), CodeGitConfigWrite},
		{args("git", "bisect", "start"), CodeGitWrites},
		{args("git", "bisect", "good", "HEAD~1"), CodeGitWrites},
		{args("git", "submodule", "init"), CodeGitConfigWrite},
		// Writing git's configuration, or .git/worktrees and .git/modules,
		// read-only in every box: refused, not asked (git would fail).
		{args("git", "branch", "--track", "f2", "origin/main"), CodeGitConfigWrite},
		{args("git", "branch", "--unset-upstream"), CodeGitConfigWrite},
		{args("git", "branch", "--edit-description"), CodeGitConfigWrite},
		{args("git", "branch", "-c", "old", "new"), CodeGitConfigWrite},
		{args("git", "checkout", "--track", "origin/main"), CodeGitConfigWrite},
		{args("git", "switch", "-t", "-c", "x", "origin/main"), CodeGitConfigWrite},
		{args("git", "fetch", "--set-upstream", "origin", "main"), CodeGitConfigWrite},
		{args("git", "pull", "--set-upstream", "origin", "main"), CodeGitConfigWrite},
		{args("git", "remote", "remove", "origin"), CodeGitConfigWrite},
		{args("git", "worktree", "prune"), CodeGitConfigWrite},
		{args("git", "submodule", "sync"), CodeGitConfigWrite},
		{args("git", "config", "--rename-section", "user", "person"), CodeGitConfigWrite},
		// Writing a workspace file as configuration, or deleting a
		// branch (git only warns about its section): asked as writes.
		{args("git", "config", "--file", "tools.cfg", "a.b", "c"), CodeGitWrites},
		{args("git", "branch", "-d", "old"), CodeGitWrites},

		// Network: asks.
		{args("git", "fetch"), CodeGitNetwork},
		{args("git", "fetch", "--all", "--prune"), CodeGitNetwork},
		{args("git", "fetch", "origin", "main:refs/remotes/origin/main"), CodeGitNetwork},
		{args("git", "fetch", "-u", "origin"), CodeGitNetwork},
		{args("git", "pull"), CodeGitNetwork},
		{args("git", "pull", "--rebase", "origin", "main"), CodeGitNetwork},
		{args("git", "push"), CodeGitNetwork},
		{args("git", "push", "-u", "origin", "HEAD"), CodeGitConfigWrite},
		{args("git", "push", "--force-with-lease", "origin", "main"), CodeGitNetwork},
		{args("git", "clone", "https://example.com/r.git"), CodeGitNetwork},
		{args("git", "clone", "--depth", "1", "git@example.com:r.git", "sub/r"), CodeGitNetwork},
		{args("git", "clone", "src", "copy"), CodeGitNetwork},
		{args("git", "ls-remote", "origin"), CodeGitNetwork},
		{args("git", "ls-remote", "--heads", "https://example.com/r.git"), CodeGitNetwork},
		{args("git", "remote", "update"), CodeGitNetwork},
		{args("git", "remote", "show", "origin"), CodeGitNetwork},
		{args("git", "remote", "add", "-f", "upstream", "https://example.com/r.git"), CodeGitConfigWrite},
		{args("git", "submodule", "update", "--init", "--recursive"), CodeGitConfigWrite},

		// Refused: options that run programs or configure git.
		{args("git", "-c", "core.pager=evil", "log"), CodeForbiddenFlag},
		{args("git", "--config-env=core.pager=X", "log"), CodeForbiddenFlag},
		{args("git", "--exec-path"), CodeForbiddenFlag},
		{args("git", "--exec-path=/tmp", "status"), CodeForbiddenFlag},
		{args("git", "-p", "log"), CodeForbiddenFlag},
		{args("git", "--paginate", "log"), CodeForbiddenFlag},
		{args("git", "--bare", "log"), CodeForbiddenFlag},
		{args("git", "--no-pager=1", "log"), CodeBadUsage},
		{args("git", "log", "--output=out.txt"), CodeForbiddenFlag},
		{args("git", "diff", "--output", "out.txt"), CodeForbiddenFlag},
		{args("git", "format-patch", "--output=x", "-1"), CodeForbiddenFlag},
		{args("git", "diff", "--ext-diff"), CodeForbiddenFlag},
		{args("git", "log", "-p", "--textconv"), CodeForbiddenFlag},
		{args("git", "show", "--textconv"), CodeForbiddenFlag},
		{args("git", "blame", "--textconv", "a.txt"), CodeForbiddenFlag},
		{args("git", "cat-file", "--textconv", "HEAD:a.txt"), CodeForbiddenFlag},
		{args("git", "cat-file", "--filters", "HEAD:a.txt"), CodeForbiddenFlag},
		{args("git", "grep", "-O", "one"), CodeForbiddenFlag},
		{args("git", "grep", "-Ovim", "one"), CodeForbiddenFlag},
		{args("git", "grep", "--open-files-in-pager=vim", "one"), CodeForbiddenFlag},
		{args("git", "grep", "--textconv", "one"), CodeForbiddenFlag},
		{args("git", "rebase", "-x", "make", "main"), CodeForbiddenFlag},
		{args("git", "rebase", "--exec=make", "main"), CodeForbiddenFlag},
		{args("git", "rebase", "-ix", "make", "main"), CodeForbiddenFlag},
		{args("git", "clone", "--upload-pack=touch x", "https://example.com/r"), CodeForbiddenFlag},
		{args("git", "clone", "-u", "touch x", "https://example.com/r"), CodeForbiddenFlag},
		{args("git", "clone", "--template=tpl", "https://example.com/r"), CodeForbiddenFlag},
		{args("git", "clone", "-c", "core.fsmonitor=x", "https://example.com/r"), CodeForbiddenFlag},
		{args("git", "clone", "--config", "filter.x.smudge=x", "https://example.com/r"), CodeForbiddenFlag},
		{args("git", "clone", "ext::sh -c touch% x", "r"), CodeForbiddenFlag},
		{args("git", "fetch", "--upload-pack", "touch x", "origin"), CodeForbiddenFlag},
		{args("git", "pull", "--upload-pack=x"), CodeForbiddenFlag},
		{args("git", "push", "--receive-pack=x", "origin"), CodeForbiddenFlag},
		{args("git", "push", "--exec=x", "origin"), CodeForbiddenFlag},
		{args("git", "ls-remote", "--upload-pack=x", "origin"), CodeForbiddenFlag},
		{args("git", "ls-remote", "ext::sh -c id"), CodeForbiddenFlag},
		{args("git", "fetch", "fd::3"), CodeForbiddenFlag},
		{args("git", "remote", "add", "x", "ext::sh -c id"), CodeForbiddenFlag},
		{args("git", "init", "--template", "tpl"), CodeForbiddenFlag},
		{args("git", "add", "-p"), CodeForbiddenFlag},
		{args("git", "add", "-i"), CodeForbiddenFlag},
		{args("git", "add", "--edit"), CodeForbiddenFlag},
		{args("git", "commit", "-p"), CodeForbiddenFlag},
		{args("git", "checkout", "-p"), CodeForbiddenFlag},
		{args("git", "reset", "--patch"), CodeForbiddenFlag},
		{args("git", "stash", "-p"), CodeForbiddenFlag},
		{args("git", "clean", "-i"), CodeForbiddenFlag},
		{args("git", "merge", "-s", "evil", "x"), CodeForbiddenFlag},
		{args("git", "merge", "--strategy=../../x", "x"), CodeForbiddenFlag},
		{args("git", "cherry-pick", "--strategy", "x/../../y", "HEAD"), CodeForbiddenFlag},
		{args("git", "pull", "-s", "evil"), CodeForbiddenFlag},
		{args("git", "config", "-e"), CodeForbiddenFlag},
		{args("git", "apply", "--unsafe-paths", "a.txt"), CodeForbiddenFlag},
		{args("git", "submodule", "foreach", "id"), CodeForbiddenFlag},
		{args("git", "bisect", "run", "make", "test"), CodeForbiddenFlag},
		{args("git", "bisect", "visualize"), CodeForbiddenFlag},
		{args("git", "log", "--help"), CodeForbiddenFlag},
		{args("git", "help", "log"), CodeForbiddenFlag},
		{args("git", "help", "-m", "log"), CodeForbiddenFlag},
		{args("git", "--help", "log"), CodeForbiddenFlag},

		// Refused: configuration writes that name programs, or escape.
		{args("git", "config", "diff.x.textconv", "cat"), CodeGitConfig},
		{args("git", "config", "filter.x.clean", "sh x"), CodeGitConfig},
		{args("git", "config", "--add", "credential.helper", "!sh x"), CodeGitConfig},
		{args("git", "config", "core.sshCommand", "sh x"), CodeGitConfig},
		{args("git", "config", "include.path", "../x"), CodeGitConfig},
		{args("git", "config", "includeIf.gitdir:/.path", "x"), CodeGitConfig},
		{args("git", "config", "core.worktree", "/"), CodeGitConfig},
		{args("git", "config", "protocol.ext.allow", "always"), CodeGitConfig},
		{args("git", "config", "--rename-section", "foo", "diff.evil"), CodeGitConfig},
		{args("git", "config", "Diff.X.TextConv", "cat"), CodeGitConfig},
		{args("git", "config", "--global", "user.name", "x"), string(workspace.Outside)},
		{args("git", "config", "--system", "--unset", "user.name"), string(workspace.Outside)},
		{args("git", "config", "--list"), string(workspace.Outside)},
		{args("git", "config", "--global", "-l"), string(workspace.Outside)},
		{args("git", "config", "--get-regexp", "url"), string(workspace.Outside)},
		{args("git", "config", "-f", "/etc/gitconfig", "-l"), string(workspace.Outside)},
		{args("git", "config", "-f", ".git/config", "x.y", "z"), string(workspace.Protected)},

		// Unknown subcommands, aliases, flags.
		{args("git", "st"), CodeUnknownSubcommand},
		{args("git", "lfs", "pull"), CodeUnknownSubcommand},
		{args("git", "difftool"), CodeUnknownSubcommand},
		{args("git", "send-email", "x"), CodeUnknownSubcommand},
		{args("git", "filter-branch"), CodeUnknownSubcommand},
		{args("git", "stash", "bogus"), CodeUnknownSubcommand},
		{args("git", "worktree"), CodeUnknownSubcommand},
		{args("git", "log", "--bogus"), CodeUnknownFlag},
		{args("git", "log", "--onelin"), CodeUnknownFlag},
		{args("git", "commit", "--temp=x"), CodeUnknownFlag},
		{args("git", "clone", "--upload-pac=x", "https://example.com/r"), CodeUnknownFlag},
		{args("git", "--bogus", "status"), CodeUnknownFlag},
		{args("git", "-C"), CodeBadUsage},

		// Paths: confined.
		{args("git", "-C", "/", "status"), string(workspace.Outside)},
		{args("git", "-C", "..", "status"), string(workspace.Outside)},
		{args("git", "-C", "out", "status"), string(workspace.Outside)},
		{args("git", "-C", "a.txt", "status"), string(workspace.Invalid)},
		{args("git", "--git-dir=/etc", "log"), string(workspace.Outside)},
		{args("git", "--work-tree=/", "status"), string(workspace.Outside)},
		{args("git", "--work-tree", "..", "status"), string(workspace.Outside)},
		{args("git", "diff", "/etc/passwd", "a.txt"), string(workspace.Outside)},
		{args("git", "diff", "--no-index", "out/passwd", "a.txt"), string(workspace.Outside)},
		{args("git", "diff", "--no-index", "--", "a.txt", "../x"), string(workspace.Outside)},
		{args("git", "log", "--", "../x"), string(workspace.Outside)},
		{args("git", "log", "--", "/etc"), string(workspace.Outside)},
		{args("git", "log", "../x"), string(workspace.Outside)},
		{args("git", "log", "-O", "/etc/passwd", "-p"), string(workspace.Outside)},
		{args("git", "add", "../x"), string(workspace.Outside)},
		{args("git", "add", "--", "out/passwd"), string(workspace.Outside)},
		{args("git", "add", "--pathspec-from-file=/etc/passwd"), string(workspace.Outside)},
		{args("git", "rm", ":(top)../x"), string(workspace.Outside)},
		{args("git", "status", "--", ":/../x"), string(workspace.Outside)},
		{args("git", "commit", "-F", "/etc/passwd"), string(workspace.Outside)},
		{args("git", "commit", "--template", "/etc/passwd"), string(workspace.Outside)},
		{args("git", "commit", "-t", "../x"), string(workspace.Outside)},
		{args("git", "tag", "-a", "v1", "-F", "/etc/passwd"), string(workspace.Outside)},
		{args("git", "merge", "-F", "/etc/passwd", "x"), string(workspace.Outside)},
		{args("git", "blame", "--contents", "/etc/passwd", "a.txt"), string(workspace.Outside)},
		{args("git", "blame", "-S", "/etc/passwd", "a.txt"), string(workspace.Outside)},
		{args("git", "blame", "--ignore-revs-file", "/etc/passwd", "a.txt"), string(workspace.Outside)},
		{args("git", "grep", "-f", "/etc/passwd"), string(workspace.Outside)},
		{args("git", "grep", "--no-index", "root", "/etc"), string(workspace.Outside)},
		{args("git", "ls-files", "-X", "/etc/passwd"), string(workspace.Outside)},
		{args("git", "rev-parse", "--resolve-git-dir", "/etc"), string(workspace.Outside)},
		{args("git", "am", "/etc/passwd"), string(workspace.Outside)},
		{args("git", "apply", "../x.patch"), string(workspace.Outside)},
		{args("git", "apply", "--build-fake-ancestor", ".git/x", "a.txt"), string(workspace.Protected)},
		{args("git", "format-patch", "-o", "/tmp", "-1"), string(workspace.Outside)},
		{args("git", "format-patch", "-o", ".git/p", "-1"), string(workspace.Protected)},
		{args("git", "format-patch", "--signature-file=/etc/passwd", "-1", "--stdout"), string(workspace.Outside)},
		{args("git", "init", "../x"), string(workspace.Outside)},
		{args("git", "init", "--separate-git-dir", "/tmp/x"), string(workspace.Outside)},
		{args("git", "clone", "https://example.com/r", "../r"), string(workspace.Outside)},
		{args("git", "clone", "/etc", "r"), string(workspace.Outside)},
		{args("git", "clone", "file:///etc", "r"), string(workspace.Outside)},
		{args("git", "clone", "--reference", "/tmp/x", "https://example.com/r"), string(workspace.Outside)},
		{args("git", "clone", "https://example.com/r", ".git/r"), string(workspace.Protected)},
		{args("git", "fetch", "../other"), string(workspace.Outside)},
		{args("git", "push", "/tmp/other", "main"), string(workspace.Outside)},
		{args("git", "push", "--repo=../other"), string(workspace.Outside)},
		{args("git", "worktree", "add", "../wt"), string(workspace.Outside)},
		{args("git", "worktree", "move", "wt", "/tmp/wt"), string(workspace.Outside)},
		{args("git", "bisect", "replay", "/etc/passwd"), string(workspace.Outside)},
		{args("git", "submodule", "add", "https://example.com/r", "../x"), string(workspace.Outside)},
	}
	for _, c := range cases {
		f := gitFinding(t, ws, c.argv[1:]...)
		code := ""
		if f != nil {
			code = f.Code
		}
		if !assert.Equal(t, c.code, code, "%q", c.argv) && f != nil {
			t.Logf("reason: %s", f.Reason)
		}
		if f != nil && (c.code == CodeGitWrites || c.code == CodeGitNetwork) {
			assert.True(t, f.Ask, "%q should ask", c.argv)
		}
	}
}

func TestGitParseSplitsAtDashDash(t *testing.T) {
	cmd := gitCmds["commit"]
	a, err := gitParse(cmd, args("-m", "--", "a.txt", "--", "b"))
	require.NoError(t, err)
	assert.Equal(t, []string{"--"}, a.Values("message"))
	assert.Equal(t, []string{"a.txt"}, a.revs)
	assert.Equal(t, []string{"b"}, a.paths)
	assert.True(t, a.dashdash)

	a, err = gitParse(gitCmds["log"], args("main", "--", "--", "x"))
	require.NoError(t, err)
	assert.Equal(t, []string{"main"}, a.revs)
	assert.Equal(t, []string{"--", "x"}, a.paths)

	a, err = gitParse(gitCmds["branch"], args("--contains"))
	require.NoError(t, err)
	assert.Equal(t, []string{"HEAD"}, a.Values("contains"))
}

func TestGitPathspecPath(t *testing.T) {
	for spec, want := range map[string]struct {
		path string
		top  bool
	}{
		"src/a.go":       {"src/a.go", false},
		":/src":          {"src", true},
		":!vendor":       {"vendor", false},
		":^vendor":       {"vendor", false},
		":/!vendor":      {"vendor", true},
		"::x":            {"x", false},
		":(top)docs":     {"docs", true},
		":(glob,top)*.c": {"*.c", true},
		":(exclude)x":    {"x", false},
		":(literal)a b":  {"a b", false},
	} {
		path, top := gitPathspecPath(spec)
		assert.Equal(t, want.path, path, spec)
		assert.Equal(t, want.top, top, spec)
	}
}

func TestGitConfigRisk(t *testing.T) {
	risky := map[string]string{
		"diff.external":                   "x",
		"diff.evil.textconv":              "x",
		"diff.a.b.command":                "x",
		"Diff.Evil.TextConv":              "x",
		"filter.evil.clean":               "x",
		"filter.evil.smudge":              "x",
		"filter.evil.process":             "x",
		"filter.lfs.clean":                "sh evil",
		"merge.evil.driver":               "x",
		"credential.helper":               "store",
		"credential.https://x.com.helper": "x",
		"core.sshCommand":                 "x",
		"gpg.program":                     "x",
		"gpg.ssh.program":                 "x",
		"gpg.x509.program":                "x",
		"gpg.ssh.defaultKeyCommand":       "x",
		"remote.origin.uploadpack":        "x",
		"remote.origin.receivepack":       "x",
		"remote.origin.vcs":               "x",
		"submodule.s.update":              "!sh x",
		"core.alternateRefsCommand":       "x",
		"interactive.diffFilter":          "x",
		"trailer.sign.command":            "x",
		"trailer.sign.cmd":                "x",
		"http.cookieFile":                 "/tmp/c",
		"http.https://x.com.cookieFile":   "/tmp/c",
	}
	network := map[string]bool{"credential.helper": true, "credential.https://x.com.helper": true, "core.sshCommand": true,
		"remote.origin.uploadpack": true, "remote.origin.receivepack": true, "remote.origin.vcs": true,
		"submodule.s.update": true, "http.cookieFile": true, "http.https://x.com.cookieFile": true}
	for key, value := range risky {
		what, risk := gitConfigRisk(key, value)
		assert.NotEmpty(t, what, key)
		if network[key] {
			assert.Equal(t, gitRiskNetwork, risk, key)
		} else {
			assert.Equal(t, gitRiskAlways, risk, key)
		}
	}
	// Keys the runner's environment overrides, or that run nothing.
	for key, value := range map[string]string{
		"core.fsmonitor": "x", "core.hooksPath": "x", "core.pager": "x", "pager.log": "x",
		"core.editor": "x", "sequence.editor": "x", "core.askPass": "x", "core.gitProxy": "x",
		"alias.st": "!sh x", "submodule.s.update": "rebase", "diff.evil.binary": "true",
		"filter.evil.required": "true", "remote.origin.url": "https://x", "commit.template": ".gitmessage",
		"user.name": "x", "log.showSignature": "true", "protocol.ext.allow": "always",
	} {
		what, _ := gitConfigRisk(key, value)
		assert.Empty(t, what, key)
	}
	for key, value := range gitLFSFilter() {
		what, risk := gitConfigRisk(key, value)
		assert.NotEmpty(t, what, key)
		assert.Equal(t, gitRiskLFS, risk, key)
	}
}

// TestGitRefusesRepositoryConfig: each program-running key in
// .git/config is refused by name, with the file it is in; keys that only
// matter when git reaches another repository only for those commands.
func TestGitRefusesRepositoryConfig(t *testing.T) {
	gitHermetic(t)
	reading := [][]string{{"status"}, {"log", "-p"}, {"diff"}, {"show"}, {"commit", "-m", "x"}, {"rev-parse", "HEAD"}}
	network := [][]string{{"fetch"}, {"pull"}, {"push"}, {"ls-remote", "origin"}, {"remote", "update"}}
	for _, kv := range []struct {
		section, key, value string
		network             bool
	}{
		{"diff", "external", "/bin/evil", false},
		{`diff "evil"`, "textconv", "/bin/evil", false},
		{`diff "evil"`, "command", "/bin/evil", false},
		{`filter "evil"`, "clean", "/bin/evil", false},
		{`filter "evil"`, "smudge", "/bin/evil", false},
		{`filter "evil"`, "process", "/bin/evil", false},
		{`merge "evil"`, "driver", "/bin/evil", false},
		{"gpg", "program", "/bin/evil", false},
		{"include", "path", "/dev/null", false},
		{`includeIf "onbranch:nope"`, "path", "evil.cfg", false},
		{"credential", "helper", "!/bin/evil", true},
		{`credential "https://example.com"`, "helper", "/bin/evil", true},
		{"core", "sshCommand", "/bin/evil", true},
		{`remote "origin"`, "uploadpack", "/bin/evil", true},
		{`submodule "s"`, "update", "!/bin/evil", true},
	} {
		dir := gitRepoDir(t)
		gitAppendConfig(t, dir, fmt.Sprintf("[%s]\n\t%s = %s\n", kv.section, kv.key, kv.value))
		ws := gitWS(t, dir)
		refused := network
		if !kv.network {
			refused = append(reading, network...)
		} else {
			for _, argv := range reading {
				f := gitFinding(t, ws, argv...)
				assert.True(t, f == nil || f.Code == CodeGitWrites, "%v with %v: %v", argv, kv, f)
			}
		}
		for _, argv := range refused {
			f := gitFinding(t, ws, argv...)
			if assert.NotNil(t, f, "%v with %v", argv, kv) {
				assert.Equal(t, CodeGitConfig, f.Code, "%v with %v: %s", argv, kv, f.Reason)
				assert.Contains(t, strings.ToLower(f.Reason), strings.ToLower(kv.key), f.Reason)
				assert.Contains(t, f.Reason, ".git/config", f.Reason)
			}
		}
		// Those that read no repository still run.
		assert.Nil(t, gitFinding(t, ws, "version"))
	}
}

// TestGitAllowsNeutralisedConfig: keys the runner's environment overrides
// do not stop git (husky's core.hooksPath, a local pager, ...).
func TestGitAllowsNeutralisedConfig(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	gitAppendConfig(t, dir, `[core]
	fsmonitor = /bin/evil
	hooksPath = .husky
	pager = /bin/evil
	editor = /bin/evil
	askPass = /bin/evil
	gitProxy = /bin/evil
[pager]
	log = /bin/evil
[sequence]
	editor = /bin/evil
[alias]
	st = !/bin/evil
	status = !/bin/evil
[log]
	showSignature = true
[protocol "ext"]
	allow = always
[diff "go"]
	xfuncname = "^func"
[commit]
	template = .gitmessage
`)
	ws := gitWS(t, dir)
	assert.Nil(t, gitFinding(t, ws, "status"))
	assert.Nil(t, gitFinding(t, ws, "log", "-p"))
	f := gitFinding(t, ws, "st")
	require.NotNil(t, f)
	assert.Equal(t, CodeUnknownSubcommand, f.Code)
}

func TestGitLFSAsks(t *testing.T) {
	gitHermetic(t)
	dir := gitRepoDir(t)
	gitAppendConfig(t, dir, "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n")
	ws := gitWS(t, dir)
	f := gitFinding(t, ws, "status")
	require.NotNil(t, f)
	assert.True(t, f.Ask)
	assert.Equal(t, CodeGitLFS, f.Code)
	f = gitFinding(t, ws, "commit", "-m", "x")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitWrites, f.Code)
	assert.Contains(t, f.Reason, "git-lfs")
	assert.Nil(t, gitFinding(t, ws, "version"))

	gitAppendConfig(t, dir, "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f && sh evil\n")
	f = gitFinding(t, ws, "status")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitConfig, f.Code)
}

// The user's own configuration is not what commands run with (they get
// a private HOME), so what it includes is not judged; but a HOME inside
// the workspace puts a file the user's own git reads where commands
// could rewrite it, and git is refused there.
func TestGitUserConfigIncludes(t *testing.T) {
	home := gitHermetic(t)
	dir := gitRepoDir(t)
	ws := gitWS(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte(fmt.Sprintf("[includeIf \"gitdir:/nope/\"]\n\tpath = %s/evil.cfg\n[diff]\n\texternal = sh\n", dir)), 0o644))
	assert.Nil(t, gitFinding(t, ws, "status"))
	assert.Nil(t, gitFinding(t, ws, "diff"))

	t.Setenv("HOME", filepath.Join(dir, "docs"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", ".gitconfig"), []byte("[user]\n\tname = x\n"), 0o644))
	f := gitFinding(t, ws, "log")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitConfig, f.Code)
}

func TestGitRepositoryPlacement(t *testing.T) {
	gitHermetic(t)
	// core.worktree elsewhere: git would work outside the workspace.
	dir := gitRepoDir(t)
	gitAppendConfig(t, dir, "[core]\n\tworktree = /etc\n")
	f := gitFinding(t, gitWS(t, dir), "status")
	require.NotNil(t, f)
	assert.Equal(t, string(workspace.Outside), f.Code)

	// A workspace inside a repository: the repository is outside.
	dir = gitRepoDir(t)
	f = gitFinding(t, gitWS(t, filepath.Join(dir, "src")), "status")
	require.NotNil(t, f)
	assert.Equal(t, string(workspace.Outside), f.Code)

	// A git directory a command could rewrite (not inside .git).
	dir = gitRepoDir(t)
	gitSetup(t, dir, "init", "-q", "--bare", "plain.git")
	ws := gitWS(t, dir)
	f = gitFinding(t, ws, "--git-dir=plain.git", "log")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitConfig, f.Code)
	// ... and one found by discovery is not used at all.
	f = gitFinding(t, ws, "-C", "plain.git", "log")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitConfig, f.Code)
	assert.Contains(t, f.Reason, "safe.bareRepository")

	// A .git file pointing at a writable directory.
	dir = gitRepoDir(t)
	require.NoError(t, os.Rename(filepath.Join(dir, ".git"), filepath.Join(dir, "gitdir")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: gitdir\n"), 0o644))
	f = gitFinding(t, gitWS(t, dir), "status")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitConfig, f.Code)

	// A .git file pointing at another repository outside.
	other := gitRepoDir(t)
	dir = gitRepoDir(t)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, ".git")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+filepath.Join(other, ".git")+"\n"), 0o644))
	f = gitFinding(t, gitWS(t, dir), "log", "-p")
	require.NotNil(t, f)
	assert.Equal(t, string(workspace.Outside), f.Code)
	// ... or at a linked worktree of it that is not this one.
	gitSetup(t, other, "worktree", "add", "-q", filepath.Join(t.TempDir(), "wt"))
	entries, err := os.ReadDir(filepath.Join(other, ".git", "worktrees"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git"),
		[]byte("gitdir: "+filepath.Join(other, ".git", "worktrees", entries[0].Name())+"\n"), 0o644))
	f = gitFinding(t, gitWS(t, dir), "log", "-p")
	require.NotNil(t, f)
	assert.Equal(t, string(workspace.Outside), f.Code)

	// --git-dir is relative to where git ends up, after -C.
	dir = gitRepoDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	ws = gitWS(t, dir)
	require.NoError(t, ws.Chdir("a/b"))
	f = gitFinding(t, ws, "--git-dir=../../.git", "-C", "../..", "status")
	require.NotNil(t, f)
	assert.Equal(t, string(workspace.Outside), f.Code)
	assert.Nil(t, gitFinding(t, ws, "-C", "../..", "--git-dir=.git", "status"))

	// No repository at all: nothing to inspect.
	empty, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	assert.Nil(t, gitFinding(t, gitWS(t, empty), "status"))
	f = gitFinding(t, gitWS(t, empty), "init")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitWrites, f.Code)
}

// TestGitLinkedWorktree: a workspace that is a linked worktree of a
// repository elsewhere is fine; that repository's configuration counts.
func TestGitLinkedWorktree(t *testing.T) {
	gitHermetic(t)
	main := gitRepoDir(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	wt := filepath.Join(base, "wt")
	gitSetup(t, main, "worktree", "add", "-q", wt)
	ws := gitWS(t, wt)
	assert.Nil(t, gitFinding(t, ws, "status"))
	assert.Nil(t, gitFinding(t, ws, "log", "-p"))
	gitAppendConfig(t, main, "[diff \"x\"]\n\ttextconv = /bin/evil\n")
	f := gitFinding(t, ws, "status")
	require.NotNil(t, f)
	assert.Equal(t, CodeGitConfig, f.Code)
}

// TestGitSubmoduleConfig: git status runs git in populated submodules,
// with their own configuration, so it is inspected too.
func TestGitSubmoduleConfig(t *testing.T) {
	gitHermetic(t)
	sub := gitRepoDir(t)
	super := gitRepoDir(t)
	gitSetup(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "s")
	gitSetup(t, super, "commit", "-qm", "sub")
	ws := gitWS(t, super)
	assert.Nil(t, gitFinding(t, ws, "status"))
	f, err := os.OpenFile(filepath.Join(super, ".git", "modules", "s", "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("[filter \"x\"]\n\tclean = /bin/evil\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	finding := gitFinding(t, ws, "status")
	require.NotNil(t, finding)
	assert.Equal(t, CodeGitConfig, finding.Code)
	assert.Contains(t, finding.Reason, ".git/modules/s/config")
	finding = gitFinding(t, ws, "-C", "src", "diff")
	require.NotNil(t, finding)
	assert.Equal(t, CodeGitConfig, finding.Code)
}

func TestGitCatalogue(t *testing.T) {
	e := gitEntry()
	assert.Equal(t, "git", e.Program)
	assert.NotEmpty(t, e.Operands)
	assert.Contains(t, e.Allowed, "status")
	assert.Contains(t, e.Allowed, "commit (writes)")
	assert.Contains(t, e.Allowed, "push (network)")
	refused := map[string]bool{}
	for _, r := range e.Refused {
		assert.NotEmpty(t, r.Reason, r.Flag)
		refused[r.Flag] = true
	}
	for _, flag := range []string{"-c TEXT", "clone -u/--upload-pack TEXT", "rebase -x/--exec TEXT", "log --output TEXT", "grep -O/--open-files-in-pager [=TEXT]"} {
		assert.True(t, refused[flag], flag)
	}

	// Every refused flag of every subcommand is refused by the validator.
	gitHermetic(t)
	ws := gitWS(t, gitRepoDir(t))
	check := func(argv []string, spec *Spec) {
		for _, f := range spec.Flags {
			if f.Forbid == "" {
				continue
			}
			flag := []string{f.Name()}
			if f.Arg != NoArg && !f.Optional {
				flag = append(flag, "x")
			}
			got := gitFinding(t, ws, append(append(append([]string{}, argv...), flag...), "a.txt")...)
			if assert.NotNil(t, got, "%v %v", argv, flag) {
				assert.Equal(t, CodeForbiddenFlag, got.Code, "%v %v: %s", argv, flag, got.Reason)
			}
		}
	}
	for name, cmd := range gitCmds {
		check([]string{name}, cmd.spec)
		for subName, sub := range cmd.subs {
			check([]string{name, subName}, sub.spec)
		}
	}
}

// A new branch where HEAD is changes no file: it runs without asking;
// any other checkout or switch still asks.
func TestGitNewBranchOnly(t *testing.T) {
	gitHermetic(t)
	ws := gitWS(t, gitRepoDir(t))
	for _, args := range [][]string{{"checkout", "-b", "feat"}, {"switch", "-c", "feat"}, {"switch", "--create=feat"}, {"checkout", "-bfeat"}} {
		assert.Nil(t, gitFinding(t, ws, args...), "%q", args)
	}
	for _, args := range [][]string{{"checkout", "-b", "feat", "HEAD~1"}, {"checkout", "-B", "feat"}, {"checkout", "HEAD~1"},
		{"checkout", "-b", "feat", "--", "a.txt"}, {"switch", "-c", "feat", "--discard-changes"}, {"switch", "-C", "feat"}} {
		f := gitFinding(t, ws, args...)
		require.NotNil(t, f, "%q", args)
		assert.Equal(t, CodeGitWrites, f.Code, "%q", args)
	}
}
