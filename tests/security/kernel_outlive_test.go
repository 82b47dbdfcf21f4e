package security

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRepo makes ws a git repository with one commit of file.txt, then
// changes file.txt, so that git diff has something to show.
func gitRepo(t *testing.T, ws string) {
	t.Helper()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = ws
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + ws, "GIT_CONFIG_NOSYSTEM=1"}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "file.txt"), []byte("one\n"), 0o644))
	git("init", "-q")
	git("add", "file.txt")
	git("commit", "-q", "-m", "one")
	require.NoError(t, os.WriteFile(filepath.Join(ws, "file.txt"), []byte("two\n"), 0o644))
}

// An approved tool writes git configuration into the HOME vtexec gives
// it (an external diff program); a later git diff, which vtexec allows on
// its own, must not obey it: what a run writes as configuration does not
// outlive the run. The same for TMPDIR, which a later run must find empty.
func TestKernelHomeDoesNotOutliveARun(t *testing.T) {
	s := newAttackSetup(t)
	gitRepo(t, s.ws)
	planted := filepath.Join(s.ws, "planted.out")
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "evil.sh"), []byte("#!/bin/sh\necho RAN > "+planted+"\n"), 0o755))
	plant := `open(my $f, ">>", "$ENV{HOME}/.gitconfig") or die "home: $!";
print $f "[diff]\n\texternal = ` + filepath.Join(s.ws, "evil.sh") + `\n"; close($f);
open(my $g, ">", "$ENV{TMPDIR}/left-behind") or die "tmp: $!"; close($g);
print "planted\n";`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "plant.pl"), []byte(plant), 0o644))
	check := `print((-e "$ENV{TMPDIR}/left-behind") ? "tmp-kept\n" : "tmp-fresh\n");`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "check.pl"), []byte(check), 0o644))

	for _, confinement := range []string{"", "off"} {
		os.Remove(planted)
		res, _ := s.runLine(t, confinement, "perl plant.pl")
		require.Contains(t, res.Stdout, "planted", res.Stderr)
		res, _ = s.runLine(t, confinement, "git diff")
		assert.NoFileExists(t, planted, "confinement %q: git diff ran the external diff an earlier run planted in HOME\n%s%s", confinement, res.Stdout, res.Stderr)
		res, _ = s.runLine(t, confinement, "perl check.pl")
		assert.Contains(t, res.Stdout, "tmp-fresh", "confinement %q: TMPDIR kept what an earlier run left", confinement)
	}
}
