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
// namespace (template_linux.go), and parks a child in a copy of it
// (park_linux.go): a program started from either is confined as one
// started directly, finds /dev/shm empty whatever the program before it
// left there, sees only its own processes, and a link or a protected
// name made since is protected.
func TestTemplateStartConfinesAsDirect(t *testing.T) {
	if !testns.Unprivileged(t) {
		return // as root programs start from a thread in the kept namespace
	}
	require.True(t, directStart && userNamespacesAllowed(), "programs start directly here")
	// From the template, and from a child parked in a copy of it
	// (park_linux.go) once one is.
	for _, parked := range []bool{false, true} {
		name := "template"
		if parked {
			name = "parked"
		}
		t.Run(name, func(t *testing.T) {
			parking(t, parked)
			startsFromTemplate(t, parked)
		})
	}
}

func startsFromTemplate(t *testing.T, parked bool) {
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
	// ready is the server's KeepReady after a run: the template, and in
	// parked mode the child parked in it, are made before it returns.
	ready := func() {
		b.KeepReady(false)
		require.Eventually(t, func() bool {
			b.shared.mu.RLock()
			defer b.shared.mu.RUnlock()
			return b.shared.templates[0] != nil && (!parked || b.shared.parked[0].Load() != nil)
		}, 5*time.Second, 5*time.Millisecond, "the template is made (and a child parked)")
	}
	// starts counts the programs started from the template or from a
	// parked child: the mode's, and the other's.
	starts := func() (mode, other int64) {
		if parked {
			return parkedStarts.Load(), templateStarts.Load()
		}
		return templateStarts.Load(), parkedStarts.Load()
	}
	direct := probeBox(t, b, dir)
	before, otherBefore := starts()
	ready()
	b.zyg.mu.Lock()
	assert.Nil(t, b.zyg.ready[0], "a helper started ahead where programs start directly")
	b.zyg.mu.Unlock()
	fromTemplate := probeBox(t, b, dir)
	mode, other := starts()
	assert.Equal(t, before+1, mode, "the program started from the template (or a parked child)")
	assert.Equal(t, otherBefore, other)
	assert.Equal(t, lines(direct), lines(fromTemplate), "the direct box and the template's copy")

	ready()
	cmd := exec.Command("/bin/ls", "-A", "/dev/shm")
	cmd.Dir = dir
	out, err := runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	assert.Equal(t, "", out, "what the program before left in /dev/shm")
	mode, _ = starts()
	assert.Equal(t, before+2, mode)

	// A link made since in the git directory: what it leads to is
	// protected in the copy; a child parked before it is not used.
	ready()
	require.NoError(t, os.Symlink(filepath.Join(dir, "target.txt"), filepath.Join(dir, ".git", "config")))
	cmd = exec.Command("/bin/sh", "-c", "echo x >> target.txt || echo refused")
	cmd.Dir = dir
	out, err = runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	assert.Contains(t, out, "refused")
	mode, other = starts()
	if parked {
		assert.Equal(t, before+2, mode, "a child parked before the link was used")
		assert.Equal(t, otherBefore+1, other, "started from the template instead")
	} else {
		assert.Equal(t, before+3, mode)
	}

	// A protected name made since: the box's world changed, and neither
	// the template nor a child parked in it is used; the name is
	// protected.
	ready()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte("{}\n"), 0o644))
	cmd = exec.Command("/bin/sh", "-c", "echo x >> .mcp.json || echo refused")
	cmd.Dir = dir
	out, err = runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	assert.Contains(t, out, "refused")
	mode2, other2 := starts()
	assert.Equal(t, []int64{mode, other}, []int64{mode2, other2}, "a stale template (or a child parked in it) was used")
}
