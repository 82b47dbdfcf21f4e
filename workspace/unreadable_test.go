package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A path through a directory vtexec may not read is refused as outside
// when that directory is outside the workspace (cat ~root/.bashrc run by
// a user), and as a bad path inside it. Root reads every directory: CI
// runs this test again as an unprivileged user.
func TestUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("root reads every directory; the unprivileged run covers this")
		return
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "locked")
	locked := filepath.Join(root, "locked")
	for _, d := range []string{root, outside, locked} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	for _, d := range []string{outside, locked} {
		require.NoError(t, os.Chmod(d, 0))
		t.Cleanup(func() { os.Chmod(d, 0o755) })
	}
	w, err := New(root)
	require.NoError(t, err)
	_, err = w.Resolve(filepath.Join(outside, "file"), Read)
	assert.Equal(t, Outside, codeOf(err), "%v", err)
	_, err = w.Resolve("locked/file", Read)
	assert.Equal(t, Invalid, codeOf(err), "%v", err)
}

func codeOf(err error) Code {
	if be, ok := err.(*BoundaryError); ok {
		return be.Code
	}
	return ""
}
