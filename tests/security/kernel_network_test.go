//go:build !windows

package security

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const netScript = `use strict; use Socket;
open(my $t, '<', "targets.txt") or die; chomp(my @t = <$t>);
sub try { my ($addr, $port) = @_; return "no-address" unless $addr;
	socket(my $s, PF_INET, SOCK_STREAM, 0) or return "no-socket";
	return connect($s, sockaddr_in($port, $addr)) ? "ok" : "denied"; }
print "host-loopback: ", try(inet_aton("127.0.0.1"), $t[2]), "\n";
print "host-loopback-via-gateway: ", try(inet_aton("10.0.2.2"), $t[2]), "\n";
print "registry: ", try(scalar gethostbyname("registry.npmjs.org"), 443), "\n";
`

// registryReachable says whether this machine reaches the npm registry;
// in CI it must.
func registryReachable(t *testing.T) bool {
	c, err := net.DialTimeout("tcp", "registry.npmjs.org:443", 5*time.Second)
	if err != nil {
		require.Empty(t, os.Getenv("CI"), "CI must reach the npm registry: %v", err)
		t.Logf("the npm registry is not reachable from here (%v): only the host's loopback is checked", err)
		return false
	}
	c.Close()
	return true
}

// slirpProcesses counts the slirp4netns processes running.
func slirpProcesses() int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if comm, err := os.ReadFile(filepath.Join("/proc", d.Name(), "comm")); err == nil && strings.TrimSpace(string(comm)) == "slirp4netns" {
			n++
		}
	}
	return n
}

// TestKernelNetworkOnlyByRule: a person's allow rule with network = true
// lets the command it approves reach the network — the package
// registry — in a network namespace of its own: never the host's
// loopback services, directly or through the user-mode gateway. The same
// command approved without it, and every other command, runs without.
// Without slirp4netns the granted run is refused, never run in the
// host's namespace.
func TestKernelNetworkOnlyByRule(t *testing.T) {
	online := registryReachable(t)
	_, slirpErr := exec.LookPath("slirp4netns")
	for _, tc := range []struct {
		name, rule string
		granted    bool
	}{
		{"granted", "[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\nnetwork = true\n", true},
		{"not granted", "[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newAttackSetup(t)
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(netScript), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"), []byte(tc.rule), 0o644))
			if tc.granted && slirpErr != nil {
				out, _ := s.command(t, "").Output()
				assert.Contains(t, string(out), `"network_unavailable"`, "%s", out)
				assert.NotContains(t, string(out), "host-loopback")
				return
			}
			before := slirpProcesses()
			res, got := s.run(t, "")
			assert.Equal(t, "denied", got["host-loopback"], "%s%s", res.Stdout, res.Stderr)
			assert.Equal(t, "denied", got["host-loopback-via-gateway"], "%s%s", res.Stdout, res.Stderr)
			assert.Contains(t, string(res.Confinement), `"network":"denied"`)
			if tc.granted {
				assert.Contains(t, string(res.Confinement), `"network_granted":["perl"]`)
				assert.Contains(t, string(res.Confinement), `"network_helper":"slirp4netns"`)
				if online {
					assert.Equal(t, "ok", got["registry"], "%s%s", res.Stdout, res.Stderr)
				}
			} else {
				assert.NotEqual(t, "ok", got["registry"], "%s%s", res.Stdout, res.Stderr)
			}
			assert.Equal(t, before, slirpProcesses(), "slirp4netns outlived the run")
		})
	}
	t.Run("never an auto-allowed command", func(t *testing.T) {
		s := newAttackSetup(t)
		require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
			[]byte("[[rule]]\nprogram = \"cat\"\ndecision = \"allow\"\nnetwork = true\n"), 0o644))
		cmd := s.command(t, "")
		cmd.Args[len(cmd.Args)-1] = "cat targets.txt"
		out, err := cmd.Output()
		require.NoError(t, err, "%s", out)
		assert.NotContains(t, string(out), "network_granted", fmt.Sprintf("%s", out))
	})
}

const loopbackScript = `use strict; use Socket;
socket(my $srv, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
bind($srv, sockaddr_in(0, inet_aton("127.0.0.1"))) or do { print "loopback: denied ($!)\n"; exit 0 };
listen($srv, 1) or die;
my ($port) = sockaddr_in(getsockname($srv));
socket(my $c, PF_INET, SOCK_STREAM, 0) or die;
print "loopback: ", (connect($c, sockaddr_in($port, inet_aton("127.0.0.1"))) ? "ok" : "denied ($!)"), "\n";
`

// TestKernelLoopbackIsTheBoxsOwn: inside the box's network namespace a
// command may serve and connect on 127.0.0.1 (a test suite's own
// servers), while the machine's loopback stays out of reach.
func TestKernelLoopbackIsTheBoxsOwn(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(loopbackScript), 0o644))
	res, got := s.run(t, "")
	assert.Equal(t, "ok", got["loopback"], "%s%s", res.Stdout, res.Stderr)
}
