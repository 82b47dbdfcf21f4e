package security

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hostile repository may reach beyond its configuration's program keys:
// a partial clone fetches (and runs the remote's programs) on a local
// read, alternates and symbolic links inside .git read other files, keys
// that name files read or write them, and submodules that only history
// knows are diffed by a git running in them.

// outsideSecret writes a secret next to the workspace and returns its path.
func (l *gitLab) outsideSecret() string {
	p := filepath.Join(filepath.Dir(l.ws), "outside", "secret")
	require.NoError(l.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(l.t, os.WriteFile(p, []byte("TOPSECRET-LINE\nsecond\n"), 0o644))
	return p
}

func (l *gitLab) output(args ...string) string {
	l.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = l.ws
	out, err := cmd.Output()
	require.NoError(l.t, err, "git %v", args)
	return strings.TrimSpace(string(out))
}

// assertRefused runs each command (approving asks) and checks that vtexec
// refused it with code, ran no marker program and showed no secret.
func (l *gitLab) assertRefused(code string, cmds ...string) {
	l.t.Helper()
	for _, cmd := range cmds {
		res := l.run(cmd, true)
		assert.Equal(l.t, "deny", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		assert.Equal(l.t, code, res.Decision.Code, "%s: %s", cmd, res.Decision.Reason)
		assert.NotEmpty(l.t, res.Decision.Hint, cmd)
		assert.NotContains(l.t, res.Stdout+res.Stderr, "TOPSECRET", cmd)
		assert.Empty(l.t, l.fired(), "%s ran a program", cmd)
	}
}

func TestGitPartialCloneFetchesOnRead(t *testing.T) {
	l := newGitLab(t)
	tree := l.output("rev-parse", "HEAD^{tree}")
	l.setup("config", "core.repositoryformatversion", "1")
	l.setup("config", "extensions.partialClone", "origin")
	l.setup("config", "remote.origin.promisor", "true")
	l.setup("config", "remote.origin.url", l.ws)
	l.setup("config", "remote.origin.uploadpack", l.script("promisor-upload-pack"))
	require.NoError(t, os.Remove(filepath.Join(l.ws, ".git", "objects", tree[:2], tree[2:])))

	l.unhardened("cat-file", "-p", tree)
	require.NotEmpty(t, l.fired(), "the lazy fetch should run the upload-pack without vtexec")
	l.clearMarkers()

	l.assertRefused("git_unsafe_config", "git status", "git log -p", "git cat-file -p "+tree)
}

func TestGitAlternatesOutside(t *testing.T) {
	l := newGitLab(t)
	outside := filepath.Join(filepath.Dir(l.ws), "outside-repo")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "a@b"}, {"config", "user.name", "a"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = outside
		require.NoError(t, cmd.Run())
	}
	require.NoError(t, os.WriteFile(filepath.Join(outside, "creds"), []byte("TOPSECRET-LINE\n"), 0o644))
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = outside
		require.NoError(t, cmd.Run())
	}
	l.write(".git/objects/info/alternates", filepath.Join(outside, ".git", "objects")+"\n")
	l.assertRefused("outside_workspace", "git cat-file --batch-all-objects --batch", "git log", "git status")
}

func TestGitSymlinksInsideGitDir(t *testing.T) {
	for _, name := range []string{"BISECT_LOG", "packed-refs", "info/exclude", "refs/heads/outside"} {
		t.Run(name, func(t *testing.T) {
			l := newGitLab(t)
			secret := l.outsideSecret()
			p := filepath.Join(l.ws, ".git", name)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			_ = os.Remove(p)
			require.NoError(t, os.Symlink(secret, p))
			l.assertRefused("outside_workspace", "git bisect log", "git log", "git status")
		})
	}
}

func TestGitConfigKeysNamingFiles(t *testing.T) {
	l := newGitLab(t)
	secret := l.outsideSecret()
	outDir := filepath.Join(filepath.Dir(secret), "patches")
	for key, cmd := range map[string]string{
		"blame.ignoreRevsFile": "git blame a.txt",
		"format.signatureFile": "git format-patch --stdout -1",
		"core.excludesFile":    "git status --ignored",
		"core.attributesFile":  "git check-attr -a a.txt",
		"mailmap.file":         "git shortlog -sn HEAD",
		"diff.orderFile":       "git diff HEAD~1",
	} {
		l.setup("config", key, secret)
		l.assertRefused("git_unsafe_config", cmd)
		l.setup("config", "--unset", key)
	}
	// Through a link inside the workspace, and relative with "..".
	require.NoError(t, os.Symlink(filepath.Dir(secret), filepath.Join(l.ws, "lnk")))
	l.setup("config", "blame.ignoreRevsFile", "lnk/secret")
	l.assertRefused("git_unsafe_config", "git blame a.txt")
	l.setup("config", "blame.ignoreRevsFile", "../outside/secret")
	l.assertRefused("git_unsafe_config", "git blame a.txt")
	l.setup("config", "--unset", "blame.ignoreRevsFile")

	l.setup("config", "format.outputDirectory", outDir)
	l.assertRefused("git_unsafe_config", "git format-patch -1")
	_, err := os.Stat(outDir)
	assert.True(t, os.IsNotExist(err), "format-patch wrote outside")

	// Inside the workspace they are fine.
	l.write("revs-to-ignore", "")
	l.setup("config", "format.outputDirectory", "patches")
	l.setup("config", "blame.ignoreRevsFile", "revs-to-ignore")
	res := l.run("git blame a.txt", false)
	assert.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.Equal(t, 0, res.ExitCode, res.Stderr)
}

// A submodule that only history knows (not in the index) is not
// inspected; git diff --submodule=diff would run git there, with that
// repository's configuration.
// gitAt runs git directly in dir, for setting up repositories beside the
// workspace, and returns its trimmed output.
func gitAt(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func TestGitHistoricSubmodule(t *testing.T) {
	l := newGitLab(t)
	gitIn := func(dir string, args ...string) string { return gitAt(t, dir, args...) }
	sub := filepath.Join(l.ws, "s")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	gitIn(sub, "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "f.txt"), []byte("1\n"), 0o644))
	gitIn(sub, "add", "-A")
	gitIn(sub, "commit", "-qm", "1")
	first := gitIn(sub, "rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "f.txt"), []byte("2\n"), 0o644))
	gitIn(sub, "commit", "-qam", "2")
	second := gitIn(sub, "rev-parse", "HEAD")
	l.setup("update-index", "--add", "--cacheinfo", "160000,"+first+",s")
	l.setup("commit", "-qm", "sub 1")
	l.setup("update-index", "--cacheinfo", "160000,"+second+",s")
	l.setup("commit", "-qm", "sub 2")
	l.setup("update-index", "--force-remove", "s")
	l.setup("commit", "-qm", "sub gone")
	f, err := os.OpenFile(filepath.Join(sub, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("[diff]\n\texternal = " + l.script("historic-submodule-diff") + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	l.unhardened("diff", "HEAD~3", "HEAD~2", "--submodule=diff")
	require.NotEmpty(t, l.fired(), "git should run the submodule's diff.external without vtexec")
	l.clearMarkers()

	l.assertRefused("forbidden_flag", "git diff HEAD~3 HEAD~2 --submodule=diff", "git log -p --submodule=diff")
	// The configured default does not help either.
	l.setup("config", "diff.submodule", "diff")
	for _, cmd := range []string{"git log -p", "git show HEAD~1", "git diff HEAD~3 HEAD~2"} {
		res := l.run(cmd, false)
		assert.Equal(t, "allow", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		assert.Empty(t, l.fired(), "%s ran the submodule's program", cmd)
	}
}

// A promisor remote named with any true value ("promisor" alone, yes, 1).
func TestGitPromisorSpelledOtherwise(t *testing.T) {
	for _, spelling := range []string{"\tpromisor\n", "\tpromisor = yes\n", "\tpromisor = 1\n", "\tpromisor = On\n"} {
		l := newGitLab(t)
		l.appendConfig("[remote \"origin\"]\n\turl = " + l.ws + "\n\tuploadpack = " + l.script("promisor-spelled") + "\n" + spelling)
		l.assertRefused("git_unsafe_config", "git cat-file -p 1111111111111111111111111111111111111111")
	}
}

// A submodule that is not checked out lives in .git/modules; git reads it
// in-process for --submodule=log and grep --recurse-submodules, and a
// nested .git reached through a gitlink in history can point anywhere.
func TestGitSubmodulesNotCheckedOut(t *testing.T) {
	l := newGitLab(t)
	l.assertRefused("forbidden_flag", "git diff HEAD~1 HEAD --submodule=log", "git log -p --submodule=log",
		"git grep --recurse-submodules -h one HEAD", "git grep --recurse-submodules --cached one",
		"git ls-files --recurse-submodules", "git submodule summary")
	// The working tree: only checked-out submodules, which are inspected.
	res := l.run("git grep --recurse-submodules -h one", false)
	assert.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	// A git directory under .git/modules whose objects come from outside.
	mod := filepath.Join(l.ws, ".git", "modules", "sub")
	cmd := exec.Command("git", "init", "-q", "--bare", mod)
	require.NoError(t, cmd.Run())
	require.NoError(t, os.MkdirAll(filepath.Join(mod, "objects", "info"), 0o755))
	outside := filepath.Join(filepath.Dir(l.ws), "outside-objects")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mod, "objects", "info", "alternates"), []byte(outside+"\n"), 0o644))
	l.assertRefused("outside_workspace", "git status")
	require.NoError(t, os.Remove(filepath.Join(mod, "objects", "info", "alternates")))
	require.NoError(t, os.WriteFile(filepath.Join(mod, "commondir"), []byte(filepath.Dir(l.ws)+"/elsewhere\n"), 0o644))
	l.assertRefused("outside_workspace", "git status")
}

func TestGitConfigBlobFollowsIncludes(t *testing.T) {
	l := newGitLab(t)
	secret := l.outsideSecret()
	l.write("cfg", "[include]\n\tpath = "+secret+"\n")
	l.setup("add", "cfg")
	l.setup("commit", "-qm", "cfg")
	l.assertRefused("forbidden_flag", "git config --blob HEAD:cfg --list", "git config --blob=HEAD:cfg --get include.path")
	res := l.run("git config --blob HEAD:cfg --no-includes --list", false)
	assert.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.NotContains(t, res.Stdout, "TOPSECRET")
}

// An index entry whose leading directory is now a link to outside: git
// grep reads the file through it.
func TestGitIndexPathThroughLinkedDirectory(t *testing.T) {
	l := newGitLab(t)
	secretDir := filepath.Dir(l.outsideSecret())
	l.write("d/secret", "placeholder\n")
	l.setup("add", "d/secret")
	l.setup("commit", "-qm", "d")
	require.NoError(t, os.RemoveAll(filepath.Join(l.ws, "d")))
	require.NoError(t, os.Symlink(secretDir, filepath.Join(l.ws, "d")))
	l.assertRefused("outside_workspace", "git grep -h TOP", "git status")
}

// git format-patch opens NNNN-subject.patch for writing, through a link
// that is already there.
func TestGitFormatPatchThroughPlantedLink(t *testing.T) {
	l := newGitLab(t)
	target := filepath.Join(filepath.Dir(l.ws), "outside", "pwned")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(l.ws, "out"), 0o755))
	require.NoError(t, os.Symlink(target, filepath.Join(l.ws, "out", "0001-two.patch")))
	require.NoError(t, os.Symlink(target, filepath.Join(l.ws, "0001-two.patch")))
	l.assertRefused("outside_workspace", "git format-patch -1 -o out", "git format-patch -1")
	// With -v the names start with "v2-"; the configured directory counts.
	require.NoError(t, os.MkdirAll(filepath.Join(l.ws, "pp"), 0o755))
	require.NoError(t, os.Symlink(target, filepath.Join(l.ws, "pp", "v2-0001-two.patch")))
	l.assertRefused("outside_workspace", "git format-patch -v2 -1 -o pp")
	require.NoError(t, os.Remove(filepath.Join(l.ws, "0001-two.patch")))
	l.setup("config", "format.outputDirectory", "pp")
	l.assertRefused("outside_workspace", "git format-patch -1")
	_, err := os.Stat(target)
	assert.True(t, os.IsNotExist(err), "format-patch wrote outside")
}

// submodule.recurse in the repository's config turns on what
// --recurse-submodules does: git grep of a revision then enters a gitlink
// whose .git file points outside the workspace.
func TestGitSubmoduleRecurseFromConfig(t *testing.T) {
	l := newGitLab(t)
	outside := filepath.Join(filepath.Dir(l.ws), "outside-repo")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	gitIn := func(args ...string) string { return gitAt(t, outside, args...) }
	gitIn("init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(outside, "psecret.txt"), []byte("TOPSECRET-SUB\n"), 0o644))
	gitIn("add", "-A")
	gitIn("commit", "-qm", "p")
	commit := gitIn("rev-parse", "HEAD")
	l.write(".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = ./x\n")
	l.setup("add", ".gitmodules")
	l.setup("update-index", "--add", "--cacheinfo", "160000,"+commit+",sub")
	l.setup("commit", "-qm", "gitlink")
	l.setup("rm", "-q", "--cached", "sub")
	l.write("sub/.git", "gitdir: "+filepath.Join(outside, ".git")+"\n")
	l.setup("config", "submodule.recurse", "true")
	l.setup("config", "submodule.sub.url", "./x")

	res := l.run("git grep -e . HEAD -- sub", false)
	assert.NotContains(t, res.Stdout+res.Stderr, "TOPSECRET", "%s: %s", res.Decision.Decision, res.Decision.Reason)
}
