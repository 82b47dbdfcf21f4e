//go:build hostprograms && !windows

package security

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const toolchainProbe = `import multiprocessing as mp, os, sys
def square(x): return x * x
if __name__ == "__main__":
    with mp.Pool(2) as pool:
        print("pool:", sum(pool.map(square, range(10))))
    with mp.Manager() as manager:
        print("manager:", manager.list([1, 2])[1])
    print("host-shm:", "visible" if os.path.exists("/dev/shm/" + sys.argv[1]) else "hidden")
    with open("/dev/shm/" + sys.argv[2], "w") as f:
        f.write("left by the box")
    print("identify:", "ok" if open("/etc/debian_version").read().strip() else "empty")
`

// Real toolchains work in the box: Python's multiprocessing gets a
// /dev/shm of the box's own (empty, gone with the box: the machine's is
// neither seen nor written) and a TMPDIR short enough for the Unix
// sockets its managers listen on (a path holds at most 107 bytes; black
// and pytest-xdist start managers), and the files that identify the system
// (pip reads /etc/debian_version) are there to read.
func TestKernelToolchainsFitTheBox(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Fatalf("python3 is needed: %v", err)
	}
	for _, confinement := range []string{"", "off"} {
		t.Run("confinement="+confinement, func(t *testing.T) {
			s := newAttackSetup(t)
			policy := filepath.Join(s.config, "vtexec", "policy.toml")
			require.NoError(t, os.WriteFile(policy, []byte("[[rule]]\nprogram = \"python3\"\ndecision = \"allow\"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "probe.py"), []byte(toolchainProbe), 0o644))
			stamp := time.Now().UnixNano()
			hostFile := fmt.Sprintf("vtexec-host-%d", stamp)
			boxFile := fmt.Sprintf("vtexec-box-%d", stamp)
			require.NoError(t, os.WriteFile("/dev/shm/"+hostFile, nil, 0o644))
			t.Cleanup(func() { os.Remove("/dev/shm/" + hostFile); os.Remove("/dev/shm/" + boxFile) })
			res, got := s.runLine(t, confinement, "python3 probe.py "+hostFile+" "+boxFile)
			require.Equal(t, 0, res.ExitCode, res.Stdout+res.Stderr)
			assert.Equal(t, "285", got["pool"], "multiprocessing works: %s", res.Stderr)
			assert.Equal(t, "2", got["manager"], "a multiprocessing manager listens in TMPDIR: %s", res.Stderr)
			assert.Equal(t, "ok", got["identify"], res.Stderr)
			if confinement == "off" {
				assert.Equal(t, "visible", got["host-shm"], "without the box the probe sees the machine's /dev/shm")
				assert.FileExists(t, "/dev/shm/"+boxFile)
				return
			}
			assert.Equal(t, "hidden", got["host-shm"], "the box's /dev/shm is its own")
			assert.NoFileExists(t, "/dev/shm/"+boxFile, "what the box writes there stays in the box")
		})
	}
}
