//go:build linux

package confine

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// fullRoot reads the effective capabilities with capget: the answer is
// the one /proc/self/status gives.
func TestFullRootReadsTheEffectiveCapabilities(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	var eff uint64
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, err = strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			require.NoError(t, err)
		}
	}
	uidMap, err := os.ReadFile("/proc/self/uid_map")
	require.NoError(t, err)
	want := os.Geteuid() == 0 && strings.Join(strings.Fields(string(uidMap)), " ") == "0 0 4294967295" &&
		eff&(1<<unix.CAP_SYS_ADMIN) != 0
	require.Equal(t, want, fullRoot())
}
