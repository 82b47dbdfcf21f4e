//go:build linux

package security

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec"
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

// POSIX shared memory lives as files in the box's own /dev/shm, a
// tmpfs: one run's must not be there for the next run of the same
// workspace (as root a box's mount namespace is kept between runs, and
// nothing writable may be kept with it).
func TestKernelSharedMemoryDoesNotOutliveARun(t *testing.T) {
	s := newAttackSetup(t)
	name := fmt.Sprintf("vtexec-left-%d", os.Getpid())
	leave := `open(my $f, ">", "/dev/shm/` + name + `") or die "shm: $!"; print $f "left"; close($f); print "left\n";`
	seen := `print((-e "/dev/shm/` + name + `") ? "shm-kept\n" : "shm-fresh\n");`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "leave.pl"), []byte(leave), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "seen.pl"), []byte(seen), 0o644))
	t.Cleanup(func() { os.Remove("/dev/shm/" + name) }) // the unconfined probe's
	for _, confinement := range []string{"", "off"} {
		res, _ := s.runLine(t, confinement, "perl leave.pl")
		require.Contains(t, res.Stdout, "left", res.Stderr)
		res, _ = s.runLine(t, confinement, "perl seen.pl")
		if confinement == "off" {
			// Unconfined the same probe finds it: it works.
			assert.Contains(t, res.Stdout, "shm-kept", res.Stderr)
			continue
		}
		assert.Contains(t, res.Stdout, "shm-fresh", "a run found what an earlier run left in /dev/shm: %s", res.Stderr)
		assert.NoFileExists(t, "/dev/shm/"+name, "the box's /dev/shm is the machine's")
	}
}

// A server's calls are runs of their own: what one leaves in /dev/shm or
// in System V IPC, none after it finds — the later calls start from the
// box's template or a child parked in a copy of it (see
// confine/park_linux.go), which must be as empty as a fresh start.
func TestKernelServerCallsLeaveNothingToTheNext(t *testing.T) {
	s := newAttackSetup(t)
	name := fmt.Sprintf("vtexec-call-%d", os.Getpid())
	leave := `open(my $f, ">", "/dev/shm/` + name + `") or die "shm: $!"; print $f "left"; close($f);
defined(my $shm = shmget(0x5657, 64, 01666)) or die "shmget: $!"; shmwrite($shm, "VTEXEC-SHM", 0, 10) or die "shmwrite: $!";
defined(my $msg = msgget(0x5658, 01666)) or die "msgget: $!"; msgsnd($msg, pack("l! a*", 1, "VTEXEC-MSG"), 0) or die "msgsnd: $!";
print "made: yes\n";`
	seen := `print "shm: ", ((-e "/dev/shm/` + name + `") ? "kept" : "fresh"), "\n";
my @f; push @f, "shm" if defined shmget(0x5657, 0, 0); push @f, "msg" if defined msgget(0x5658, 0);
print "ipc: ", (@f ? join(",", @f) : "none"), "\n";`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "leave.pl"), []byte(leave), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "seen.pl"), []byte(seen), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "both.pl"), []byte(leave+"\n"+seen), 0o644))
	t.Cleanup(func() {
		os.Remove("/dev/shm/" + name)
		exec.Command("perl", "-e", "shmctl(shmget(0x5657,0,0),0,0); msgctl(msgget(0x5658,0),0,0)").Run()
	})
	// The second call (the first starts the box's template) leaves them;
	// the third's program finds what it left itself (the probe works);
	// each of the others starts as a fresh run.
	got := s.serveLines(t, "perl seen.pl", "perl leave.pl", "perl both.pl", "perl seen.pl", "perl seen.pl")
	require.Equal(t, "yes", got[1]["made"], "the second call made them")
	assert.Equal(t, map[string]string{"made": "yes", "shm": "kept", "ipc": "shm,msg"}, got[2],
		"the probe finds what its own call left: it works")
	for _, i := range []int{0, 3, 4} {
		assert.Equal(t, map[string]string{"shm": "fresh", "ipc": "none"}, got[i], "call %d of a server found what an earlier call left", i+1)
	}
	assert.NoFileExists(t, "/dev/shm/"+name, "the box's /dev/shm is the machine's")
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

// tree lists every entry under dir (relative paths), nested ones too.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel)
		return nil
	}))
	return out
}

// Protected names that do not exist: vtexec makes no placeholder in the
// person's tree, removes the empty ones earlier versions made, and what
// an approved tool creates under a protected name — direnv's .envrc,
// agents' settings, a .git of its own where the workspace has none — is
// moved out of the workspace when the run ends, so that the person's
// direnv, agent or git never obeys it.
func TestKernelProtectedNamesPlantedAreDisarmed(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.RemoveAll(filepath.Join(s.ws, ".git")))
	// An empty placeholder an earlier vtexec made, and a person's own
	// empty directory under a protected name.
	require.NoError(t, os.Mkdir(filepath.Join(s.ws, ".idea"), 0o755))
	require.NoError(t, unixSetxattr(filepath.Join(s.ws, ".idea"), "user.vtexec.placeholder", "1"))
	require.NoError(t, os.Mkdir(filepath.Join(s.ws, ".vscode"), 0o755))
	plant := `use strict; my $f;
open($f, '>', ".envrc") && print $f "echo PWNED\n"; close $f;
mkdir(".claude"); open($f, '>', ".claude/settings.json") && print $f "{}"; close $f;
mkdir(".git"); open($f, '>', ".git/config") && print $f "[core]\n\tfsmonitor = ./x\n"; close $f;
print "planted\n";`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "plant.pl"), []byte(plant), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "nothing.pl"), []byte("print qq(nothing\\n);\n"), 0o644))

	before := tree(t, s.ws)
	res, _ := s.runLine(t, "", "perl nothing.pl")
	require.Contains(t, res.Stdout, "nothing", res.Stderr)
	after := tree(t, s.ws)
	assert.NotContains(t, after, ".idea", "the empty placeholder an earlier version made is removed")
	assert.Contains(t, after, ".vscode", "a person's own empty directory stays")
	assert.ElementsMatch(t, filterOut(before, ".idea"), after, "a run that created nothing left entries in the workspace")

	res, _ = s.runLine(t, "", "perl plant.pl")
	require.Contains(t, res.Stdout, "planted", res.Stderr)
	for _, n := range []string{".envrc", ".claude", ".git"} {
		assert.NoFileExists(t, filepath.Join(s.ws, n), "%s outlived the run", n)
		assert.NoDirExists(t, filepath.Join(s.ws, n), "%s outlived the run", n)
		assert.Contains(t, res.Disarmed, filepath.Join(s.ws, n), "the result says %s was disarmed", n)
	}
	entries, err := os.ReadDir(filepath.Join(s.state, "vtexec", "disarmed"))
	require.NoError(t, err)
	assert.Len(t, entries, 3, "what was planted is kept in vtexec's state directory")

	// With confinement off the probe's plants stay: it works.
	res, _ = s.runLine(t, "off", "perl plant.pl")
	assert.FileExists(t, filepath.Join(s.ws, ".envrc"))
}

func filterOut(list []string, name string) []string {
	var out []string
	for _, x := range list {
		if x != name {
			out = append(out, x)
		}
	}
	return out
}

// TestKernelPlantWindow measures, with a watcher outside the box, how
// long a protected name a boxed program makes stays in the workspace
// before vtexec moves it away: the window in which a program running
// beside the box (direnv, an editor) could read it. It asserts that
// none is left; the window is logged, not asserted (SECURITY.md quotes
// it).
func TestKernelPlantWindow(t *testing.T) {
	s := newAttackSetup(t)
	const plants = 40
	plant := `for my $i (1..` + strconv.Itoa(plants) + `) { open(my $f, '>', ".envrc") or die "open: $!"; print $f "echo $i\n"; close $f; select(undef, undef, undef, 0.02); } print "planted\n";`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "plant.pl"), []byte(plant), 0o644))

	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	require.NoError(t, err)
	defer unix.Close(fd)
	_, err = unix.InotifyAddWatch(fd, s.ws, unix.IN_CREATE|unix.IN_MOVED_FROM|unix.IN_DELETE)
	require.NoError(t, err)
	// On each creation the watcher looks at the name until it is gone:
	// how long it stayed, and whether its content could be read.
	var windows []time.Duration
	read := 0
	done, stop := make(chan struct{}), make(chan struct{})
	envrc := filepath.Join(s.ws, ".envrc")
	go func() {
		defer close(done)
		buf := make([]byte, 1<<16)
		for seen := 0; seen < plants; {
			select {
			case <-stop:
				return
			default:
			}
			n, err := unix.Read(fd, buf)
			if err == unix.EAGAIN {
				time.Sleep(50 * time.Microsecond)
				continue
			}
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				mask := binary.NativeEndian.Uint32(buf[off+4:])
				nameLen := int(binary.NativeEndian.Uint32(buf[off+12:]))
				name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+nameLen]), "\x00")
				off += unix.SizeofInotifyEvent + nameLen
				if name != ".envrc" || mask&unix.IN_CREATE == 0 {
					continue
				}
				seen++
				start := time.Now()
				for time.Since(start) < time.Second {
					b, err := os.ReadFile(envrc)
					if err != nil {
						break
					}
					if len(b) > 0 {
						read++
						break
					}
				}
				for time.Since(start) < time.Second {
					if _, err := os.Lstat(envrc); err != nil {
						break
					}
				}
				windows = append(windows, time.Since(start))
			}
		}
	}()
	res, _ := s.runLine(t, "", "perl plant.pl")
	require.Contains(t, res.Stdout, "planted", res.Stderr)
	time.Sleep(100 * time.Millisecond) // the last events
	close(stop)
	<-done
	assert.NoFileExists(t, filepath.Join(s.ws, ".envrc"), "the last .envrc made was moved away")
	// A plant the watch had not moved yet is truncated by the next one,
	// not made again: on a busy machine there are fewer moves than plants.
	assert.NotEmpty(t, res.Disarmed)
	require.NotEmpty(t, windows)
	slices.Sort(windows)
	t.Logf("window over %d plants, seen from outside: median %v, max %v; content read %d times", len(windows), windows[len(windows)/2], windows[len(windows)-1], read)
}

// A link inside a protected place (an agent's settings, a git hook) that
// leads to an ordinary workspace file makes that file part of the
// protected place: the box keeps it read-only too, so a command cannot
// write the settings or the hook under the file's other name.
func TestKernelLinksIntoProtectedPlacesAreFollowed(t *testing.T) {
	for _, confinement := range []string{"", "off"} {
		s := newAttackSetup(t)
		gitRepo(t, s.ws)
		for p, body := range map[string]string{"notes.json": "{}\n", "scripts/hook.sh": "#!/bin/sh\n", "plain.txt": "x\n"} {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(s.ws, p)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, p), []byte(body), 0o644))
		}
		require.NoError(t, os.MkdirAll(filepath.Join(s.ws, ".claude"), 0o755))
		require.NoError(t, os.Symlink("../notes.json", filepath.Join(s.ws, ".claude", "settings.json")))
		require.NoError(t, os.MkdirAll(filepath.Join(s.ws, ".git", "hooks"), 0o755))
		require.NoError(t, os.Symlink("../../scripts/hook.sh", filepath.Join(s.ws, ".git", "hooks", "pre-commit")))
		probe := `sub try { my ($n, $p) = @_; my $f; my $ok = open($f, '>>', $p) && print $f "x"; print "$n: ", ($ok ? "ok" : "denied"), "\n"; }
try("settings-target", "notes.json"); try("hook-target", "scripts/hook.sh"); try("plain", "plain.txt");`
		require.NoError(t, os.WriteFile(filepath.Join(s.ws, "probe.pl"), []byte(probe), 0o644))
		res, got := s.runLine(t, confinement, "perl probe.pl")
		want := "denied"
		if confinement == "off" {
			want = "ok"
		}
		assert.Equal(t, want, got["settings-target"], "confinement %q\n%s%s", confinement, res.Stdout, res.Stderr)
		assert.Equal(t, want, got["hook-target"], "confinement %q\n%s%s", confinement, res.Stdout, res.Stderr)
		assert.Equal(t, "ok", got["plain"], res.Stdout+res.Stderr)
	}
}

// A .git a person approved (git init asks) stays; the same .git made by
// a command no person approved as a repository write is moved away (see
// TestKernelProtectedNamesPlantedAreDisarmed).
func TestKernelApprovedGitInitKeepsItsGitDir(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git")))
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: "git init -q", Workspace: ws, AuditLog: "off", Approver: answerWith(vtexec.AnswerOnce)})
	require.NoError(t, err)
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.DirExists(t, filepath.Join(ws, ".git"), "%+v %s", res.Disarmed, res.Stderr)
	assert.Empty(t, res.Disarmed)
}

// Descriptors vtexec inherited from whoever started it (a harness's pipe,
// a file a shell script left open: bash keeps its script open on
// descriptor 255) are not the boxed program's: an open descriptor is a
// way past every check of paths, the kernel's included. The probe reads
// a file outside the workspace and writes to the caller's pipe through
// descriptors 3 and 4 if it has them.
func TestKernelInheritedDescriptorsStayOutside(t *testing.T) {
	s := newAttackSetup(t)
	probe := `for my $fd (3, 4) {
	if (open(my $f, "+<&=", $fd) || open($f, "<&=", $fd) || open($f, ">&=", $fd)) { my $l = <$f>; print $f "LEAKED\n"; print "fd$fd: open ", (defined $l ? $l : "\n") }
	else { print "fd$fd: closed\n" }
}`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "fds.pl"), []byte(probe), 0o644))
	for _, confinement := range []string{"", "off"} {
		secret, err := os.Open(filepath.Join(s.outside, "canary"))
		require.NoError(t, err)
		r, w, err := os.Pipe()
		require.NoError(t, err)
		cmd := s.vtexecRun(t, confinement, "perl fds.pl")
		cmd.ExtraFiles = []*os.File{secret, w}
		out, err := cmd.Output()
		secret.Close()
		w.Close()
		require.NoError(t, err, "%s", out)
		var res runJSON
		require.NoError(t, json.Unmarshal(out, &res), "%s", out)
		assert.Contains(t, res.Stdout, "fd3: closed", "confinement %q: the program read a file outside through a descriptor vtexec inherited: %s", confinement, res.Stdout)
		assert.Contains(t, res.Stdout, "fd4: closed", "confinement %q: the program had the caller's pipe: %s", confinement, res.Stdout)
		r.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		written, _ := io.ReadAll(r)
		r.Close()
		assert.NotContains(t, string(written), "LEAKED", "confinement %q", confinement)
	}
}
