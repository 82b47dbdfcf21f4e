package validators

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTouch(t *testing.T) {
	runCases(t, []vcase{
		{args("touch", "new.txt"), ""},
		{args("touch", "a.txt", "src/new.go"), ""},
		{args("touch", "-c", "-m", "-d", "2024-01-01 00:00", "a.txt"), ""},
		{args("touch", "-t", "202401010000", "a.txt"), ""},
		{args("touch", "--date=yesterday", "--time=mtime", "a.txt"), ""},
		{args("touch", "-r", "b.txt", "a.txt"), ""},
		{args("touch", "--reference=b.txt", "a.txt"), ""},
		{args("touch", "-h", "a.txt"), ""},
		{args("touch", "-"), ""},
		{args("touch", "/tmp/x"), "outside_workspace"},
		{args("touch", "out/x"), "outside_workspace"},
		{args("touch", "-h", "out"), "outside_workspace"},
		{args("touch", ".git/index.lock"), "protected_path"},
		{args("touch", ".git/config"), "protected_path"},
		{args("touch", "-r", "/etc/shadow", "a.txt"), "outside_workspace"},
		{args("touch", "-r", "out/passwd", "a.txt"), "outside_workspace"},
		{args("touch"), CodeBadUsage},
		{args("touch", "-d"), CodeBadUsage},
		{args("touch", "--no-deref", "a.txt"), CodeUnknownFlag},
	})
}

// touch creates the file a dangling link points to: it is checked there.
func TestTouchDanglingLink(t *testing.T) {
	ws := testWS(t)
	require.NoError(t, os.Symlink("/nonexistent-vtexec/x", filepath.Join(ws.Root(), "dangle")))
	require.NoError(t, os.Symlink("newfile", filepath.Join(ws.Root(), "inlink")))
	require.NoError(t, os.Symlink("../a.txt", filepath.Join(ws.Root(), ".git", "lnk")))
	assert.Equal(t, "outside_workspace", checkCode(t, ws, "touch", "dangle"))
	assert.Equal(t, "outside_workspace", checkCode(t, ws, "touch", "-c", "dangle"))
	assert.Equal(t, "", checkCode(t, ws, "touch", "inlink"))
	assert.Equal(t, "protected_path", checkCode(t, ws, "touch", ".git/lnk"))
}
