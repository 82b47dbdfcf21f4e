//go:build harness || harnessclaude || harnesscodex

package hook

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec/internal/testbin"
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
	bin, err = testbin.Build(dir)
	require.NoError(t, err)
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
