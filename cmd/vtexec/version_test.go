//go:build linux

package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dynamicallyLinked reports whether the ELF binary at path names a
// dynamic loader.
func dynamicallyLinked(t *testing.T, path string) bool {
	f, err := elf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

// vtexec version says how it was linked, as the README's Install
// explains: built as it says, static; with cgo, dynamically linked.
func TestVersionSaysHowItWasLinked(t *testing.T) {
	static := goBuild(t, ".", "vtexec")
	out, err := exec.Command(static, "version").Output()
	require.NoError(t, err)
	assert.False(t, dynamicallyLinked(t, static))
	assert.Contains(t, string(out), ", static")

	if _, err := exec.LookPath("gcc"); err != nil {
		t.Log("no C compiler here: a cgo build is not made")
		return
	}
	withCgo := filepath.Join(t.TempDir(), "vtexec-cgo")
	build := exec.Command("go", "build", "-o", withCgo, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	msg, err := build.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	out, err = exec.Command(withCgo, "version").Output()
	require.NoError(t, err)
	assert.True(t, dynamicallyLinked(t, withCgo), "a cgo build links the C library")
	assert.True(t, strings.Contains(string(out), "with cgo"), "%s", out)
}
