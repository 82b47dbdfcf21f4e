//go:build !windows

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On macOS and Windows names are compared without case: Config.toml and
// config.toml are one file, and /Users/me/Proj is /users/me/proj. The
// workspace compares its roots, its protected places and the targets of
// links in them the same way there. Run on Linux with the rule switched
// on: each case passes with it and fails without it (a write that the
// caseless platform would let through).
func TestCaselessPlatformsCompareWithoutCase(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(base, "Proj")
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "Config.toml"), nil, 0o644))
	// A link in the git directory to a workspace file: writing that file
	// writes what git reads.
	require.NoError(t, os.Symlink(filepath.Join(root, "Config.toml"), filepath.Join(root, ".git", "config")))
	upper := filepath.Join(base, "PROJ")

	writes := func() map[string]error {
		w, err := New(root)
		require.NoError(t, err)
		out := map[string]error{}
		for _, p := range []string{
			"config.toml", // the link's target, in another case
			filepath.Join(upper, ".vtexec", "policy.toml"), // vtexec's own directory, the root in another case
			filepath.Join(upper, "notes.txt"),              // an ordinary file, the root in another case
		} {
			_, out[p] = w.Resolve(p, Write)
		}
		return out
	}
	protected := func(err error) bool {
		var be *BoundaryError
		return errors.As(err, &be) && be.Code == Protected
	}

	old := caseless
	t.Cleanup(func() { caseless = old })
	caseless = true
	got := writes()
	for p, err := range got {
		if strings.HasSuffix(p, "notes.txt") {
			assert.NoError(t, err, "%s is inside the root, spelled in another case", p)
			continue
		}
		assert.True(t, protected(err), "%s: %v", p, err)
	}
	w, err := New(root)
	require.NoError(t, err)
	assert.True(t, w.Contains(filepath.Join(upper, "x")))

	caseless = false
	got = writes()
	assert.NoError(t, got["config.toml"], "with names compared exactly, the other spelling is another file")
	assert.False(t, protected(got[filepath.Join(upper, ".vtexec", "policy.toml")]))
	assert.False(t, w.Contains(filepath.Join(upper, "x")))
}

// On Windows a name that Windows reads as something else than the file
// it names — a device (NUL, COM1.txt), a data stream (a.txt:secret), a
// short name (PROGRA~1) only the file system resolves, a trailing dot
// it strips — is refused; on Linux each is an ordinary name. (Windows is
// the walk over a Windows tree of windowsFixture.)
func TestWindowsNamesThatAreNotTheFileAreRefused(t *testing.T) {
	names := []string{"NUL", "logs/COM1.txt", "a.txt:secret", "sub/PROGRA~1/x", "notes.", "aux.log", "x/con"}
	lw, err := New(t.TempDir())
	require.NoError(t, err)
	for _, p := range names {
		_, err := lw.Resolve(p, Write)
		assert.NoError(t, err, "%s is an ordinary name on Linux", p)
	}

	w := windowsFixture(t)
	for _, p := range names {
		_, err := w.Resolve(p, Write)
		var be *BoundaryError
		require.True(t, errors.As(err, &be), "%s: %v", p, err)
		assert.Equal(t, Invalid, be.Code, p)
		assert.Contains(t, be.Reason, "on Windows", p)
	}
	_, err = w.Resolve("src/main.go", Write)
	assert.NoError(t, err, "an ordinary name")
}

// Under WSL a workspace on a Windows drive (/mnt/c/…) lives by Windows'
// rules though vtexec runs on Linux: names compare without case there and
// the names Windows reads as something else are refused; elsewhere on the
// same machine Linux's rules hold. (Which paths are on a drive is
// pathrules.WSLDrive's, table-tested; here a directory stands in for
// /mnt/c.)
func TestWSLDrivesLiveByWindowsRules(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	drive := filepath.Join(base, "mnt", "c")
	root := filepath.Join(drive, "Users", "me", "Proj")
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	linuxRoot := filepath.Join(base, "home", "me", "proj")
	require.NoError(t, os.MkdirAll(linuxRoot, 0o755))
	old := onWindowsDrive
	t.Cleanup(func() { onWindowsDrive = old })
	onWindowsDrive = func(p string) bool { return p == drive || strings.HasPrefix(p, drive+"/") }

	w, err := New(root)
	require.NoError(t, err)
	assert.True(t, w.Contains(filepath.Join(drive, "users", "ME", "proj", "x")), "names without case on the drive")
	_, err = w.Resolve("notes.txt:hidden", Write)
	assert.Error(t, err, "a data stream on the drive")
	_, err = w.Resolve("CON", Write)
	assert.Error(t, err, "a device name on the drive")
	_, err = w.Resolve("src/main.go", Write)
	assert.NoError(t, err)

	lw, err := New(linuxRoot)
	require.NoError(t, err)
	assert.False(t, lw.Contains(filepath.Join(base, "home", "ME", "proj", "x")), "Linux's own files keep their case")
	_, err = lw.Resolve("notes.txt:hidden", Write)
	assert.NoError(t, err, "an ordinary name on Linux's own files")
}
