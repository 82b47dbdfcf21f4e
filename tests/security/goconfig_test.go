//go:build !windows

package security

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec"
)

// The go command's configuration is part of its command: a go.mod or
// go.work the agent writes, or one above the workspace, cannot make an
// allowed go list, go doc, go build, go vet, go mod tidy or go fmt read
// outside the workspace — with the box off too. The same go list, run
// directly, does read there.
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
			for _, cmd := range []string{"go list -json example.com/other", "go list -m all", "go doc example.com/other",
				"go build ./...", "go vet ./...", "go mod tidy", "go fmt ./..."} {
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

// go build, vet and fmt run without asking only with flags that name no
// program and write nowhere but inside: -toolexec, -exec, -vettool and
// the compiler's and linker's unknown flags (-ldflags=-extld=PROGRAM)
// are refused or asked, -o outside is refused, and go fmt and gofmt -w
// rewrite only files that are writable.
func TestGoBuildRunsNoProgramOfTheCommands(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/ws\n\ngo 1.21\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "hooks", "post-merge.go"), []byte("package hooks\n"), 0o644))
	e := standinEngine(t)
	for cmd, want := range map[string]string{
		"go build ./...":                          "allow",
		"go build -o bin/demo .":                  "allow",
		"go build -ldflags '-s -w -X main.v=1' .": "allow",
		"go build -gcflags=all='-N -l' .":         "allow",
		"go vet ./...":                            "allow",
		"go clean -testcache":                     "allow",
		"go mod tidy":                             "allow",
		"gofmt -l -w main.go":                     "allow",
		"go build -toolexec /bin/true .":          "deny",
		"go build -exec /bin/true .":              "deny",
		"go vet -vettool=/bin/true ./...":         "deny",
		"go build -o /dev/null ./...":             "allow",
		"go build -o /tmp/demo .":                 "deny",
		"go build -o .git/hooks/pre-commit .":     "deny",
		"go build -ldflags=-extld=/bin/sh .":      "ask",
		"go build -gcflags=-cpuprofile=/tmp/p .":  "ask",
		"go build -compiler gccgo .":              "ask",
		"go clean":                                "ask",
		"go fmt ./...":                            "allow", // go's patterns leave .git out
		"gofmt -w .":                              "deny",  // gofmt would rewrite .git/hooks/post-merge.go
		"gofmt -w .git/hooks/post-merge.go":       "deny",
		"go test ./...":                           "ask",
		"go run .":                                "ask",
		"go generate ./...":                       "ask",
	} {
		d, err := e.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, want, string(d.Decision), "%s: %s %s", cmd, d.Code, d.Reason)
	}
}
