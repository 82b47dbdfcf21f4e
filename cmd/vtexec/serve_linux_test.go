//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec/internal/buildinfo"
	"github.com/vtexec/vtexec/internal/testbin"
)

// Without vtexec-serve beside it, vtexec serve says so and how to
// install it, after checking its flags as before.
func TestServeWithoutTheServerSaysHowToInstallIt(t *testing.T) {
	ws := cliWorkspace(t)
	bin := goBuild(t, ".", "vtexec")
	out, err := exec.Command(bin, "serve", "--workspace", ws).CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, exitUsage, exit.ExitCode())
	assert.Contains(t, string(out), "server_missing")
	assert.Contains(t, string(out), "go install github.com/vtexec/vtexec/cmd/...@")
	out, err = exec.Command(bin, "serve", "--max-jobs", "0", "--workspace", ws).CombinedOutput()
	require.ErrorAs(t, err, &exit)
	assert.Contains(t, string(out), "--max-jobs must be at least 1")
}

// vtexec serve starts the vtexec-serve of its own build, and vtexec-serve
// refuses a caller of another build (one program updated without the
// other) before it reads the flags, which may differ between builds.
func TestServeRefusesAServerOfAnotherBuild(t *testing.T) {
	ws := cliWorkspace(t)
	// Stamped with the commit, so that the build has an identity.
	bin, err := testbin.Build(t.TempDir(), "GOFLAGS=-buildvcs=true", "CGO_ENABLED=0")
	require.NoError(t, err)
	serveBin := filepath.Join(filepath.Dir(bin), "vtexec-serve")

	// The same build: it serves until its input ends.
	cmd := exec.Command(bin, "serve", "--workspace", ws)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, string(out), "server_mismatch")

	// Another build's caller.
	cmd = exec.Command(serveBin, "--a-flag-of-another-build", "--workspace", ws)
	cmd.Env = append(os.Environ(), buildinfo.CallerEnv+"=v9.9.9 commit 0123456789abcdef")
	cmd.Stdin = strings.NewReader("")
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, exitUsage, exit.ExitCode())
	assert.Contains(t, string(out), "server_mismatch")
	assert.Contains(t, string(out), "v9.9.9 commit 0123456789abcdef")
	assert.Contains(t, string(out), "go install github.com/vtexec/vtexec/cmd/...@")
}
