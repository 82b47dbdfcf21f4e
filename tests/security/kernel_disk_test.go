//go:build linux

package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/testns"
)

// A command that fills the disk is stopped by the full file system, and
// the result says the disk was full (disk_full): the program's own error
// is all an agent would see otherwise. The workspace is a 1 MiB tmpfs,
// so the machine's disk is never at risk.
func TestKernelFullDiskIsReported(t *testing.T) {
	if !testns.Root(t) {
		return
	}
	s := newAttackSetup(t)
	require.NoError(t, unix.Mount("tmpfs", s.ws, "tmpfs", 0, "size=1m"))
	t.Cleanup(func() { unix.Unmount(s.ws, unix.MNT_DETACH) })
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "fill.pl"),
		[]byte(`open(my $f, '>', "big") or die "open: $!"; my $b = "x" x 65536; while (syswrite($f, $b)) {} print "stopped: $!\n"; exit 1;`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "small.pl"), []byte(`print "small\n";`), 0o644))

	codes := func(out []byte) string {
		var res struct {
			Warnings []struct{ Code string } `json:"warnings"`
		}
		require.NoError(t, jsonUnmarshal(out, &res), "%s", out)
		var c []string
		for _, w := range res.Warnings {
			c = append(c, w.Code)
		}
		return strings.Join(c, " ")
	}
	out, _ := s.vtexecRun(t, "", "perl small.pl").Output()
	assert.NotContains(t, codes(out), "disk_full", "%s", out)

	out, _ = s.vtexecRun(t, "", "perl fill.pl").Output()
	assert.Contains(t, string(out), "stopped: No space left on device")
	assert.Contains(t, codes(out), "disk_full", "%s", out)
}
