//go:build !windows

package security

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The go command's configuration is part of its command: a go.mod or
// go.work the agent writes, or one above the workspace, cannot make an
// allowed go list or go doc read outside the workspace — with the box
// off too. The same go list, run directly, does read there.
func TestGoConfigurationStaysInside(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	write := func(p, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	other := filepath.Join(base, "other")
	write(filepath.Join(other, "go.mod"), "module example.com/other\n\ngo 1.21\n")
	write(filepath.Join(other, "other.go"), "package other\n")
	const mod = "module example.com/ws\n\ngo 1.21\n\nrequire example.com/other v0.0.0\n"
	const main = "package main\n\nimport _ \"example.com/other\"\n\nfunc main() {}\n"
	type setup func(ws string)
	cases := []struct {
		name  string
		setup setup
		want  string
	}{
		{"replace outside", func(ws string) { write(filepath.Join(ws, "go.mod"), mod+"replace example.com/other => ../other\n") }, "deny"},
		{"replace block outside", func(ws string) {
			write(filepath.Join(ws, "go.mod"), mod+"replace (\n\texample.com/other v0.0.0 => "+other+"\n)\n")
		}, "deny"},
		{"replace through a link", func(ws string) {
			write(filepath.Join(ws, "go.mod"), mod+"replace example.com/other => ./vendored\n")
			require.NoError(t, os.Symlink(other, filepath.Join(ws, "vendored")))
		}, "deny"},
		{"go.work uses outside", func(ws string) {
			write(filepath.Join(ws, "go.mod"), mod)
			write(filepath.Join(ws, "go.work"), "go 1.21\n\nuse (\n\t.\n\t../other\n)\n")
		}, "deny"},
		{"go.work above", func(ws string) {
			write(filepath.Join(ws, "go.mod"), mod)
			write(filepath.Join(filepath.Dir(ws), "go.work"), "go 1.21\n\nuse ./other\nuse ./"+filepath.Base(ws)+"\n")
		}, "deny"},
		{"replace inside", func(ws string) {
			write(filepath.Join(ws, "go.mod"), mod+"replace example.com/other => ./third_party/other\n")
			write(filepath.Join(ws, "third_party/other/go.mod"), "module example.com/other\n\ngo 1.21\n")
			write(filepath.Join(ws, "third_party/other/other.go"), "package other\n")
		}, "allow"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(base, "case", string(rune('a'+i)))
			ws := filepath.Join(dir, "ws")
			write(filepath.Join(ws, "main.go"), main)
			// the "go.work above" case writes beside ws; "other" is found
			// from there as ./other
			require.NoError(t, os.Symlink(other, filepath.Join(dir, "other")))
			tc.setup(ws)
			for _, cmd := range []string{"go list -json example.com/other", "go list -m all", "go doc example.com/other"} {
				out, _ := exec.Command(builtVtexec(t), "check", "--json", "--workspace", ws, "--", cmd).Output()
				assert.Contains(t, string(out), `"decision":"`+tc.want+`"`, "%s: %s", cmd, out)
			}
			if tc.want == "deny" {
				// The probe itself: go, run directly, reads outside.
				direct := exec.Command("go", "list", "-json", "example.com/other")
				direct.Dir = ws
				direct.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off", "GOWORK=")
				got, err := direct.CombinedOutput()
				// The package's only copy is outside the workspace.
				require.NoError(t, err, "%s", got)
				assert.Contains(t, string(got), `"ImportPath": "example.com/other"`, "go itself reads outside the workspace here")
			}
		})
	}
}
