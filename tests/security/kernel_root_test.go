//go:build linux

package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootProbe looks for what the box should not see: a unix socket at a
// path no list of covered directories names, the machine's mounts and
// its cgroup tree.
const rootProbe = `use strict; use Socket;
open(my $t, '<', "targets.txt") or die "targets: $!"; chomp(my @targets = <$t>);
my ($sock, $marker) = @targets;
socket(my $s, PF_UNIX, SOCK_STREAM, 0);
print "socket: ", (connect($s, pack_sockaddr_un($sock)) ? "ok" : "denied"), "\n";
print "socket-dir: ", (-e $sock || -d (split m{/[^/]+$}, $sock)[0] ? "seen" : "hidden"), "\n";
my $mounts = "";
if (open(my $m, '<', "/proc/self/mountinfo")) { local $/; $mounts = <$m>; }
print "mountinfo-marker: ", (index($mounts, $marker) >= 0 ? "seen" : "hidden"), "\n";
my @cg = glob("/sys/fs/cgroup/*/vtexec-* /sys/fs/cgroup/vtexec-* /sys/fs/cgroup/*/*/vtexec-*");
print "cgroups: ", (@cg ? "seen" : "hidden"), "\n";
`

// The box sees only what it may use: a listener on a pathname socket in
// a new top-level directory at a random path gets no connection, and
// neither the machine's mounts nor its cgroup tree can be listed.
func TestKernelBoxSeesOnlyItsOwnRoot(t *testing.T) {
	top := fmt.Sprintf("/vtexec-probe-%d", time.Now().UnixNano())
	dir := top
	if os.Getuid() != 0 {
		// Without root no new top-level directory can be made: a new
		// directory in the user's own place that no list names.
		home, err := os.MkdirTemp("", "vtp")
		require.NoError(t, err)
		dir = home
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	listenUnix(t, sock)
	for _, confinement := range []string{"", "off"} {
		s := newAttackSetup(t)
		// A mount of the machine's own the box must not list: the
		// marker is in a mount point's path.
		marker := filepath.Base(dir)
		require.NoError(t, os.WriteFile(filepath.Join(s.ws, "targets.txt"), []byte(sock+"\n"+marker+"\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(s.ws, "probe.pl"), []byte(rootProbe), 0o644))
		res, got := s.runLine(t, confinement, "perl probe.pl")
		if confinement == "off" {
			assert.Equal(t, "ok", got["socket"], "the probe works unconfined: %s%s", res.Stdout, res.Stderr)
			continue
		}
		assert.Equal(t, "denied", got["socket"], "%s%s", res.Stdout, res.Stderr)
		assert.Equal(t, "hidden", got["socket-dir"], "%s%s", res.Stdout, res.Stderr)
		assert.Equal(t, "hidden", got["cgroups"], "%s%s", res.Stdout, res.Stderr)
		assert.True(t, strings.Contains(string(res.Confinement), `"sockets_hidden":true`), string(res.Confinement))
	}
}

// The box's mount table holds its own mounts only: nothing of the
// machine's that the box does not use.
func TestKernelMountTableIsTheBoxs(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "mounts.pl"), []byte(`open(my $m, '<', "/proc/self/mountinfo") or die; print <$m>;`), 0o644))
	res, _ := s.runLine(t, "", "perl mounts.pl")
	require.NotEmpty(t, res.Stdout, res.Stderr)
	allowed := []string{"/", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/dev", "/proc", "/sys/devices/system/cpu", "/tmp", s.ws}
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		f := strings.Fields(line)
		require.GreaterOrEqual(t, len(f), 5, line)
		point := f[4]
		ok := false
		for _, a := range allowed {
			if point == a || (a != "/" && strings.HasPrefix(point, a+"/")) {
				ok = true
			}
		}
		if strings.Contains(point, "/vtexec-") { // the run's private directories
			ok = true
		}
		assert.True(t, ok, "the box lists the machine's mount %s", point)
	}
}

// walkProbe lists what the box can read from its root down: each
// directory it can list and each file it can open, but the box's own
// procfs and the system's programs; the machine's whole tree (when
// unconfined) is cut at 600 entries.
const walkProbe = `use strict;
my @todo = ("/"); my $n = 0;
while (@todo && $n < 600) {
	my $d = shift @todo;
	opendir(my $h, $d) or next;
	print "dir: $d\n"; $n++;
	for my $e (sort readdir $h) {
		next if $e eq "." || $e eq ".." || $e =~ /\n/;
		my $p = ($d eq "/" ? "" : $d) . "/$e";
		next if $p =~ m{^/(proc|usr)(/|$)} || -l $p;
		if (-d $p) { push @todo, $p; next }
		if (open(my $f, "<", $p)) { print "read: $p\n"; $n++; close $f }
	}
}
`

// readableInBox are the names the box reads outside the workspace and
// its run's directories: the system's programs and libraries, the /etc
// files programs read, kernel facts for nproc, a few devices.
// Written out here, not taken from confine's lists: a name added there
// must fail this test until it is added here too.
var readableInBox = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone",
	"/etc/host.conf", "/etc/hosts", "/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
	"/etc/mime.types", "/etc/magic", "/etc/locale.alias", "/etc/default/locale",
	"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/alternatives", "/etc/os-release",
	"/etc/debian_version", "/etc/lsb-release", "/etc/issue", "/etc/python3",
	"/sys/devices/system/cpu", "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/shm"}

// The box reads beneath its own root, where it can list directories:
// what it finds there, from / down, is what it was given and nothing
// else of the machine's (the same walk unconfined finds more).
func TestKernelBoxReadsOnlyWhatItsRootHolds(t *testing.T) {
	for _, confinement := range []string{"", "off"} {
		s := newAttackSetup(t)
		require.NoError(t, os.WriteFile(filepath.Join(s.ws, "walk.pl"), []byte(walkProbe), 0o644))
		res, _ := s.runLine(t, confinement, "perl walk.pl")
		allowed := func(p string, dir bool) bool {
			if within(p, s.ws) || strings.Contains(p, "/vtexec-") || strings.HasPrefix(p, "/etc/python3.") {
				return true
			}
			for _, a := range readableInBox {
				if within(p, a) || dir && within(a, p) { // a directory on the way to one
					return true
				}
			}
			return dir && within(s.ws, p)
		}
		var outside []string
		lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		for _, line := range lines {
			kind, p, ok := strings.Cut(line, ": ")
			if !ok && confinement == "off" {
				continue // the machine's odd names, or its output cut
			}
			require.True(t, ok, "%s\n%s", line, res.Stderr)
			if !allowed(p, kind == "dir") {
				outside = append(outside, line)
			}
		}
		if confinement == "off" {
			assert.NotEmpty(t, outside, "the walk finds the machine's files unconfined:\n%s", res.Stdout)
			continue
		}
		assert.Contains(t, lines, "dir: /", res.Stderr)
		assert.Contains(t, lines, "read: /etc/passwd", res.Stderr)
		assert.Empty(t, outside, "the box read what it was not given")
	}
}

// within reports whether p is root or lies below it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}
