package security

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const netScript = `use strict; use Socket;
open(my $t, '<', "targets.txt") or die; chomp(my @t = <$t>);
socket(my $s, PF_INET, SOCK_STREAM, 0);
print "connect: ", (connect($s, sockaddr_in($t[2], inet_aton("127.0.0.1"))) ? "ok" : "denied"), "\n";
`

// TestKernelNetworkOnlyByRule: a person's allow rule with network = true
// lets the command it approves reach the network; the same command
// approved without it, and every other command, runs without.
func TestKernelNetworkOnlyByRule(t *testing.T) {
	for _, tc := range []struct {
		rule, want string
	}{
		{"[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\nnetwork = true\n", "ok"},
		{"[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n", "denied"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			s := newAttackSetup(t)
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(netScript), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"), []byte(tc.rule), 0o644))
			res, got := s.run(t, "")
			assert.Equal(t, tc.want, got["connect"], "%s%s", res.Stdout, res.Stderr)
			assert.Contains(t, string(res.Confinement), `"network":"denied"`)
			if tc.want == "ok" {
				assert.Contains(t, string(res.Confinement), `"network_granted":["perl"]`)
			}
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
