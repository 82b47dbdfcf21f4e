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

// System V IPC made in a box (a shared-memory segment, a message queue, a
// semaphore set) is the box's own: invisible to the host and to another
// workspace's box, and gone with the box.
func TestKernelIPCDoesNotOutliveTheBox(t *testing.T) {
	s := newAttackSetup(t)
	make := `use strict;
defined(my $shm = shmget(0x5654, 64, 01666)) or die "shmget: $!"; shmwrite($shm, "VTEXEC-SHM", 0, 10) or die "shmwrite: $!";
defined(my $msg = msgget(0x5655, 01666)) or die "msgget: $!"; msgsnd($msg, pack("l! a*", 1, "VTEXEC-MSG"), 0) or die "msgsnd: $!";
defined(my $sem = semget(0x5656, 1, 01666)) or die "semget: $!";
print "made\n";`
	seen := `my @f; push @f, "shm" if defined shmget(0x5654, 0, 0); push @f, "msg" if defined msgget(0x5655, 0);
push @f, "sem" if defined semget(0x5656, 0, 0); print "seen:", join(",", @f), "\n";`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "make.pl"), []byte(make), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "seen.pl"), []byte(seen), 0o644))
	host := func() string {
		out, err := exec.Command("perl", filepath.Join(s.ws, "seen.pl")).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	t.Cleanup(func() { // the unconfined probe leaves them on the host
		exec.Command("perl", "-e", "shmctl(shmget(0x5654,0,0),0,0); msgctl(msgget(0x5655,0),0,0); semctl(semget(0x5656,0,0),0,0,0)").Run()
	})
	require.Equal(t, "seen:\n", host(), "the host holds the test's keys already")

	other := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(other.ws, "seen.pl"), []byte(seen), 0o644))

	res, _ := s.runLine(t, "", "perl make.pl")
	require.Contains(t, res.Stdout, "made", res.Stderr)
	assert.Equal(t, "seen:\n", host(), "the box's IPC reached the host")
	res, _ = other.runLine(t, "", "perl seen.pl")
	assert.Contains(t, res.Stdout, "seen:\n", "another box sees the first box's IPC: %s", res.Stdout)
	assert.NotContains(t, res.Stdout, "shm")
	res, _ = s.runLine(t, "", "perl seen.pl")
	assert.Contains(t, res.Stdout, "seen:\n", "the next run of the same workspace still sees them: %s", res.Stdout)

	// With confinement off the same probe reaches the host: it works.
	res, _ = s.runLine(t, "off", "perl make.pl")
	require.Contains(t, res.Stdout, "made", res.Stderr)
	assert.Equal(t, "seen:shm,msg,sem\n", host())
}
