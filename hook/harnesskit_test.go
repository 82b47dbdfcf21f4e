//go:build harness || harnessclaude || harnesscodex

package hook

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// harnessDirs makes a HOME and a project directory for a harness, under a
// temporary directory with its links resolved, and builds vtexec there.
func harnessDirs(t *testing.T) (dir, home, work, bin string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	home, work = filepath.Join(dir, "home"), filepath.Join(dir, "work")
	require.NoError(t, os.MkdirAll(home, 0o755))
	require.NoError(t, os.MkdirAll(work, 0o755))
	bin = filepath.Join(dir, "vtexec")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/vtexec/vtexec/cmd/vtexec").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return dir, home, work, bin
}

// serveLoopback serves h on 127.0.0.1 until the test ends and returns its
// address.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}
