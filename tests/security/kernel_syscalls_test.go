//go:build linux && amd64

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

// syscallProbe tries, with x86_64 syscall numbers, what a box must not
// do: leave a key in the user's keyring (which outlives the box and which
// the user's other processes read), load BPF, open perf events, make
// namespaces or mount. It prints "NAME: ok" or "NAME: denied".
const syscallProbe = `use strict;
sub try { my ($name, $ret) = @_; print "$name: ", ($ret >= 0 ? "ok" : "denied"), "\n"; }
my ($type, $desc, $payload) = ("user", "vtexec-probe-key", "KEY-SECRET");
my $key = syscall(248, $type, $desc, $payload, 10, -4);
try("add_key", $key);
try("keyctl", syscall(250, 0, -4, 0));
try("request_key", syscall(249, $type, $desc, 0, 0));
try("bpf", syscall(321, 0, 0, 0));
my $attr = pack("LLQ", 1, 128, 0) . ("\0" x 104);
try("perf_event_open", syscall(298, $attr, 0, -1, -1, 0));
try("unshare-user", syscall(272, 0x10000000));
my ($src, $dst, $fs) = ("none", "/tmp", "tmpfs");
try("mount", syscall(165, $src, $dst, $fs, 0, 0));
print "key:$key\n" if $key >= 0;
`

// A box cannot use the kernel's facilities that outlive it or reach
// past it: keyrings, BPF, perf events, new namespaces, mounts.
func TestKernelSyscallFilter(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "probe.pl"), []byte(syscallProbe), 0o644))
	res, got := s.runLine(t, "", "perl probe.pl")
	for _, name := range []string{"add_key", "keyctl", "request_key", "bpf", "perf_event_open", "unshare-user", "mount"} {
		assert.Equal(t, "denied", got[name], "%s in the box\n%s%s", name, res.Stdout, res.Stderr)
	}
	assert.NotRegexp(t, `(?m)^key:`, res.Stdout)
	assert.Contains(t, string(res.Confinement), `"syscall_filter":true`)

	// Without the box the probe's key reaches the user's keyring: the
	// probe works (and the test takes the key out again).
	res, got = s.runLine(t, "off", "perl probe.pl")
	assert.Equal(t, "ok", got["add_key"], res.Stdout+res.Stderr)
	for _, line := range strings.Split(res.Stdout, "\n") {
		if id, ok := strings.CutPrefix(line, "key:"); ok {
			exec.Command("perl", "-e", "syscall(250, 9, "+id+", -4)").Run() // KEYCTL_UNLINK
		}
	}
}
