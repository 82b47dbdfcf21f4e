//go:build linux

package security

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keeperIndexes are the indexes of the keepers of the workspace ws (those
// whose templates name it, in the user's keepers' directory): each
// keeper's pid and the inodes of its user and network namespaces, with
// its templates.
func keeperIndexes(t *testing.T, ws string) []keeperIndexOf {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(os.TempDir(), "vtexec-"+strconv.Itoa(os.Geteuid()), "keep", "*.json"))
	require.NoError(t, err)
	var out []keeperIndexOf
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // a keeper that ended
		}
		var ix keeperIndexOf
		if json.Unmarshal(data, &ix) == nil && strings.Contains(string(data), ws) {
			out = append(out, ix)
		}
	}
	return out
}

type keeperIndexOf struct {
	PID  int `json:"pid"`
	User struct {
		Ino uint64 `json:"ino"`
	} `json:"user"`
	Net struct {
		Ino uint64 `json:"ino"`
	} `json:"net"`
	Templates []json.RawMessage `json:"templates"`
}

// nsLines prints the inodes of the program's user and network namespaces
// and what it finds of what a run before left in /dev/shm and in the
// box's other places outside the workspace, then leaves a file in each
// it may and tries the protected .envrc.
const nsLines = `for my $n ("user", "net") { my $l = readlink("/proc/self/ns/$n"); $l =~ s/.*\[(\d+)\]/$1/; print "$n: $l\n" }
print "shm: ", (-e "/dev/shm/left" ? "left" : "clean"), "\n";
my @seen; for my $d ("", "/tmp", "/var/tmp", "/run", "/dev", "/home", "/root", "/etc", "/usr") { push @seen, $d || "/" if -e "$d/planted-by-run"; if (open(my $f, '>', "$d/planted-by-run")) { close $f } }
print "planted seen: ", (@seen ? join(" ", @seen) : "none"), "\n";
if (open(my $s, '>', "/dev/shm/left")) { print $s "x"; close $s } else { print "shm-write: $!\n" }
my $ok = open(my $e, '>>', ".envrc") && print $e "planted"; print "envrc: ", ($ok ? "written" : "denied"), "\n";`

// Without root, fresh runs of a workspace after the first share the
// user and network namespaces a keeper holds, and start from its
// template of the box's mount namespace: the protections hold, and
// nothing a run leaves in /dev/shm reaches the next. The keeper is a
// process of the user's named vtexec-keeper, and ends once the workspace
// is gone. As root, namespaces are kept as files and no keeper starts.
func TestKernelFreshRunsShareTheKeepersNamespaces(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "keeper.pl"), []byte(nsLines), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, ".envrc"), []byte("keep\n"), 0o644))
	run := func() map[string]string {
		res, got := s.runLine(t, "", "perl keeper.pl")
		require.Equal(t, 0, res.ExitCode, "stdout %q, stderr %q", res.Stdout, res.Stderr)
		assert.Equal(t, "denied", got["envrc"], "the protected .envrc")
		assert.Equal(t, "clean", got["shm"], "what a run before left in /dev/shm")
		assert.Equal(t, "none", got["planted seen"], "what a run before left outside the workspace")
		assert.Empty(t, got["shm-write"], "/dev/shm is the run's to write")
		return got
	}
	first := run()
	if os.Geteuid() == 0 {
		assert.Empty(t, keeperIndexes(t, s.ws), "a keeper started as root")
		return
	}
	// The first run started the keeper with its namespaces, and asked
	// for the template of its box.
	var ix keeperIndexOf
	require.Eventually(t, func() bool {
		all := keeperIndexes(t, s.ws)
		if len(all) != 1 {
			return false
		}
		ix = all[0]
		return len(ix.Templates) == 1
	}, 10*time.Second, 10*time.Millisecond, "the keeper lists the first run's template")
	assert.Equal(t, strconv.FormatUint(ix.User.Ino, 10), first["user"], "the keeper holds the first run's user namespace")
	assert.Equal(t, strconv.FormatUint(ix.Net.Ino, 10), first["net"])
	for _, f := range []string{"cmdline", "comm"} {
		name, err := os.ReadFile("/proc/" + strconv.Itoa(ix.PID) + "/" + f)
		require.NoError(t, err)
		assert.Equal(t, "vtexec-keeper", strings.TrimRight(string(name), "\x00\n"), "the keeper's %s", f)
	}

	for range 2 {
		got := run()
		assert.Equal(t, first["user"], got["user"], "a later run in the keeper's user namespace")
		assert.Equal(t, first["net"], got["net"], "a later run in the keeper's network namespace")
	}
	require.Len(t, keeperIndexes(t, s.ws), 1, "one keeper for the workspace")
	data, err := os.ReadFile(filepath.Join(s.ws, ".envrc"))
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(data))

	require.NoError(t, os.RemoveAll(s.ws))
	assert.Eventually(t, func() bool { return syscall.Kill(ix.PID, 0) != nil }, 5*time.Second, 20*time.Millisecond,
		"the keeper ends once its workspace is gone")
}

// Fresh runs of a workspace that start together, with no keeper yet,
// leave one keeper, whose namespaces the runs after them share.
func TestKernelFreshRunsStartingTogetherLeaveOneKeeper(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("as root namespaces are kept as files: no keeper (TestKernelFreshRunsShareTheKeepersNamespaces)")
		return
	}
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "keeper.pl"), []byte(nsLines), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, ".envrc"), []byte("keep\n"), 0o644))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := s.vtexecRun(t, "", "perl keeper.pl").Output()
			assert.NoError(t, err, "%.300s", out)
		}()
	}
	wg.Wait()
	var ix keeperIndexOf
	require.Eventually(t, func() bool {
		all := keeperIndexes(t, s.ws)
		if len(all) == 1 {
			ix = all[0]
		}
		return len(all) == 1 && len(ix.Templates) == 1
	}, 10*time.Second, 10*time.Millisecond, "one keeper lists the workspace's template")
	for range 2 {
		_, got := s.runLine(t, "", "perl keeper.pl")
		assert.Equal(t, strconv.FormatUint(ix.User.Ino, 10), got["user"], "a later run in the keeper's user namespace")
	}
	assert.Len(t, keeperIndexes(t, s.ws), 1)
}
