//go:build linux

package security

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/confine"
)

// gitDirProbe runs where git runs, in the box that lets git write
// history, and tries what would make a later git — the person's own,
// outside any box — run its code: replace the git directory, add a hook
// where there is no hooks directory, add attributes, configure a
// submodule's or a worktree's git directory, or add one of its own.
const gitDirProbe = `use strict;
sub try { my ($name, $ok) = @_; print "$name: ", ($ok ? "ok" : "denied"), "\n"; }
sub put { my ($p, $text) = @_; open(my $f, '>>', $p) or return 0; print $f $text; close($f); }
try("hooks", (-d ".git/hooks" || mkdir(".git/hooks")) && put(".git/hooks/post-checkout", "#!/bin/sh\n"));
try("config", put(".git/config", "[core]\n\tfsmonitor = x\n"));
try("info-attributes", (-d ".git/info" || mkdir(".git/info")) && put(".git/info/attributes", "* filter=x\n"));
try("commondir", put(".git/commondir", "/tmp\n"));
try("module-config", put(".git/modules/sub/config", "[core]\n\tfsmonitor = x\n"));
try("module-hook", put(".git/modules/sub/hooks/pre-commit", "#!/bin/sh\n"));
try("new-module", mkdir(".git/modules/evil") && put(".git/modules/evil/config", "[core]\n\tfsmonitor = x\n"));
try("worktree-config", put(".git/worktrees/w/config.worktree", "[core]\n\tfsmonitor = x\n"));
try("head", put(".git/HEAD", ""));
try("index", put(".git/index.lock", "x") && rename(".git/index.lock", ".git/index"));
try("refs", (-d ".git/refs/heads" || mkdir(".git/refs/heads")) && put(".git/refs/heads/probe", "0000000000000000000000000000000000000000\n"));
try("rename-gitdir", rename(".git", ".git-old") && mkdir(".git"));
`

// The git directory cannot be replaced, and nothing in it that
// configures git or runs code can be written, even in the box where git
// writes history; git still writes HEAD, its index and refs there.
func TestKernelGitDirCannotBeReplaced(t *testing.T) {
	for _, mode := range []confine.Mode{confine.ModeRequired, confine.ModeOff} {
		t.Run(string(mode), func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			ws := filepath.Join(base, "ws")
			require.NoError(t, os.MkdirAll(ws, 0o755))
			out, err := exec.Command("git", "init", "-q", ws).CombinedOutput()
			require.NoError(t, err, "%s", out)
			gitDir := filepath.Join(ws, ".git")
			require.NoError(t, os.RemoveAll(filepath.Join(gitDir, "hooks")))
			for _, d := range []string{"modules/sub/hooks", "worktrees/w"} {
				require.NoError(t, os.MkdirAll(filepath.Join(gitDir, d), 0o755))
			}
			for _, f := range []string{"modules/sub/config", "modules/sub/HEAD", "worktrees/w/HEAD", "commondir"} {
				require.NoError(t, os.WriteFile(filepath.Join(gitDir, f), []byte("x\n"), 0o644))
			}
			require.NoError(t, os.Remove(filepath.Join(gitDir, "commondir"))) // a main worktree has none
			require.NoError(t, os.WriteFile(filepath.Join(ws, "probe.pl"), []byte(gitDirProbe), 0o644))

			b, err := confine.Open(confine.Spec{ReadWrite: []string{ws}, GitDirs: []string{gitDir}}, mode)
			require.NoError(t, err)
			defer b.CloseLast()
			absent := confine.AbsentGitFiles([]string{gitDir})
			cmd := exec.Command("/usr/bin/perl", "probe.pl")
			cmd.Dir = ws
			var stdout strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stdout
			p, err := b.StartWith(cmd, nil, confine.StartOptions{Git: true})
			require.NoError(t, err)
			require.NoError(t, p.Wait())
			// What the run made where no bind can keep a name missing is
			// moved out of the workspace after it, as vtexec does.
			quarantine := filepath.Join(base, "quarantine")
			var disarmed []confine.Disarmed
			if mode == confine.ModeRequired {
				disarmed = confine.Disarm(absent, quarantine, "a git directory's commondir")
			}
			got := map[string]string{}
			for _, line := range strings.Split(stdout.String(), "\n") {
				if k, v, ok := strings.Cut(line, ": "); ok {
					got[k] = v
				}
			}
			want := "denied"
			if mode == confine.ModeOff {
				want = "ok" // the probe works
			}
			for _, name := range []string{"rename-gitdir", "hooks", "config", "info-attributes",
				"module-config", "module-hook", "new-module", "worktree-config"} {
				assert.Equal(t, want, got[name], "%s\n%s", name, stdout.String())
			}
			for _, name := range []string{"head", "index", "refs"} {
				assert.Equal(t, "ok", got[name], "git writes %s\n%s", name, stdout.String())
			}
			if mode == confine.ModeRequired {
				assert.NoFileExists(t, filepath.Join(gitDir, "commondir"), "the commondir the run made is gone")
				require.Len(t, disarmed, 1, "%v", disarmed)
				assert.FileExists(t, disarmed[0].MovedTo)
				assert.FileExists(t, filepath.Join(gitDir, "HEAD"), "the git directory is still the one it was")
				assert.NoDirExists(t, filepath.Join(ws, ".git-old"))
			}
		})
	}
}

// A .git file (a worktree's, a submodule's, git init --separate-git-dir)
// names the git directory git uses: where that lies in the workspace, it
// is protected as a .git directory is.
func TestKernelGitFileProtectsTheGitDirItNames(t *testing.T) {
	for _, confinement := range []string{"", "off"} {
		s := newAttackSetup(t)
		require.NoError(t, os.RemoveAll(filepath.Join(s.ws, ".git")))
		out, err := exec.Command("git", "init", "-q", "--separate-git-dir="+filepath.Join(s.ws, ".realgit"), s.ws).CombinedOutput()
		require.NoError(t, err, "%s", out)
		gitFile, err := os.ReadFile(filepath.Join(s.ws, ".git"))
		require.NoError(t, err)
		require.Contains(t, string(gitFile), "gitdir:")
		probe := `my $f; my $ok = (-d ".realgit/hooks" || mkdir(".realgit/hooks")) && open($f, '>', ".realgit/hooks/pre-commit") && print $f "#!/bin/sh\n";
print "hook: ", ($ok ? "ok" : "denied"), "\n";
$ok = open($f, '>>', ".realgit/config") && print $f "[core]\n\tfsmonitor = x\n";
print "config: ", ($ok ? "ok" : "denied"), "\n";`
		require.NoError(t, os.WriteFile(filepath.Join(s.ws, "probe.pl"), []byte(probe), 0o644))
		res, got := s.runLine(t, confinement, "perl probe.pl")
		want := "denied"
		if confinement == "off" {
			want = "ok"
		}
		assert.Equal(t, want, got["hook"], "confinement %q: %s%s", confinement, res.Stdout, res.Stderr)
		assert.Equal(t, want, got["config"], "confinement %q: %s%s", confinement, res.Stdout, res.Stderr)
	}
}
