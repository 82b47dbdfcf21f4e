//go:build linux && amd64

package confine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/testns"
)

// A box that serves many programs keeps a template of its mount
// namespace (template_linux.go): a program started from a copy of it is
// confined as one started directly, finds /dev/shm empty whatever the
// program before it left there, sees only its own processes, and a
// protected name made since the template was made is protected.
func TestTemplateStartConfinesAsDirect(t *testing.T) {
	if !testns.Unprivileged(t) {
		return // as root programs start from a thread in the kept namespace
	}
	require.True(t, directStart && userNamespacesAllowed(), "programs start directly here")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".envrc"), []byte("keep\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "target.txt"), []byte("t\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	spec := Spec{ReadWrite: []string{dir}, Protected: []Protected{{Path: filepath.Join(dir, ".envrc")}, {Path: filepath.Join(dir, ".mcp.json")}},
		GitDirs: []string{filepath.Join(dir, ".git")}, Limits: Limits{OpenFiles: 512, FileSize: 1 << 30}}
	b := openBox(t, spec)
	lines := func(out string) []string {
		l := strings.Split(out, "\n")
		slices.Sort(l)
		return slices.Compact(l) // the template's /proc and /dev/shm lie under the program's
	}
	direct := probeBox(t, b, dir)
	before := templateStarts.Load()
	b.KeepReady(false)
	b.zyg.mu.Lock()
	assert.Nil(t, b.zyg.ready[0], "a helper started ahead where programs start directly")
	b.zyg.mu.Unlock()
	require.Eventually(t, func() bool {
		b.shared.mu.RLock()
		defer b.shared.mu.RUnlock()
		return b.shared.templates[0] != nil
	}, 5*time.Second, 5*time.Millisecond, "the template is made")
	fromTemplate := probeBox(t, b, dir)
	assert.Equal(t, before+1, templateStarts.Load(), "the program started from the template")
	assert.Equal(t, lines(direct), lines(fromTemplate), "the direct box and the template's copy")

	cmd := exec.Command("/bin/ls", "-A", "/dev/shm")
	cmd.Dir = dir
	out, err := runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	assert.Equal(t, "", out, "what the program before left in /dev/shm")
	assert.Equal(t, before+2, templateStarts.Load())

	// A link made since in the git directory: what it leads to is
	// protected in the copy.
	require.NoError(t, os.Symlink(filepath.Join(dir, "target.txt"), filepath.Join(dir, ".git", "config")))
	cmd = exec.Command("/bin/sh", "-c", "echo x >> target.txt || echo refused")
	cmd.Dir = dir
	out, err = runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	assert.Contains(t, out, "refused")
	assert.Equal(t, before+3, templateStarts.Load())

	// A protected name made since: the box's world changed, and the
	// template is not used; the name is protected.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte("{}\n"), 0o644))
	cmd = exec.Command("/bin/sh", "-c", "echo x >> .mcp.json || echo refused")
	cmd.Dir = dir
	out, err = runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	assert.Contains(t, out, "refused")
	assert.Equal(t, before+3, templateStarts.Load(), "a stale template was used")
}
