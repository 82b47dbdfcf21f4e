//go:build !windows

package vtexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkWithin runs Check and fails the test if it does not answer in 5 s.
func checkWithin(t *testing.T, req Request) (Decision, error) {
	t.Helper()
	type answer struct {
		d   Decision
		err error
	}
	got := make(chan answer, 1)
	go func() {
		d, err := testEngine.Check(context.Background(), req)
		got <- answer{d, err}
	}()
	select {
	case a := <-got:
		return a.d, a.err
	case <-time.After(5 * time.Second):
		t.Fatal("Check hung")
		return Decision{}, nil
	}
}

// Files vtexec reads are input: a FIFO, a device, a huge file or a link
// where none is followed is refused with a structured error, never a hang
// or an unbounded read.
func TestUntrustedFilesRefused(t *testing.T) {
	plant := map[string]func(t *testing.T, p string){
		"symlink to /dev/zero": func(t *testing.T, p string) { require.NoError(t, os.Symlink("/dev/zero", p)) },
		"FIFO":                 func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) },
		"2 MiB file": func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, make([]byte, 2<<20), 0o644))
		},
		"symlink to a policy elsewhere": func(t *testing.T, p string) {
			other := filepath.Join(t.TempDir(), "policy.toml")
			require.NoError(t, os.WriteFile(other, []byte("[[rule]]\nprogram = \"tar\"\ndecision = \"deny\"\n"), 0o644))
			require.NoError(t, os.Symlink(other, p))
		},
		"directory": func(t *testing.T, p string) { require.NoError(t, os.Mkdir(p, 0o755)) },
	}
	where := map[string]struct {
		path func(dir string, files PolicyFiles) string
		req  func(r Request) Request
		code string
	}{
		"project policy": {func(_ string, f PolicyFiles) string { return f.Project }, nil, "bad_policy"},
		"local policy":   {func(_ string, f PolicyFiles) string { return f.ProjectLocal }, nil, "bad_policy"},
		"trust store":    {func(_ string, f PolicyFiles) string { return f.TrustStore }, nil, "bad_policy"},
		"session state": {func(_ string, f PolicyFiles) string {
			return filepath.Join(filepath.Dir(f.TrustStore), "sessions", "s1.json")
		},
			func(r Request) Request { r.Session = "s1"; return r }, "bad_state"},
		"audit file": {func(dir string, f PolicyFiles) string {
			return filepath.Join(filepath.Dir(f.TrustStore), "audit.jsonl")
		},
			func(r Request) Request { r.AuditLog = ""; return r }, "bad_state"},
	}
	for wname, w := range where {
		for pname, p := range plant {
			if wname == "audit file" && pname == "2 MiB file" {
				continue // appended to, not read
			}
			if wname == "audit file" && pname == "symlink to a policy elsewhere" {
				continue // the user's own --audit path may be a link
			}
			t.Run(wname+"/"+pname, func(t *testing.T) {
				hermetic(t)
				dir := testDir(t)
				files, err := PolicyFilesFor(dir)
				require.NoError(t, err)
				path := w.path(dir, files)
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				p(t, path)
				req := Request{Command: "cat src/a\\ b.txt", Workspace: dir, AuditLog: "off"}
				if w.req != nil {
					req = w.req(req)
				}
				_, err = checkWithin(t, req)
				var re *RequestError
				require.True(t, errors.As(err, &re), "%v", err)
				assert.Equal(t, w.code, re.Code)
				assert.Contains(t, re.Reason, path)
				assert.NotEmpty(t, re.Hint)
			})
		}
	}
}

// The user's own policy file may be a link to a regular file.
func TestUserPolicyLinkFollowed(t *testing.T) {
	config, _ := hermetic(t)
	dir := testDir(t)
	real := filepath.Join(t.TempDir(), "policy.toml")
	require.NoError(t, os.WriteFile(real, []byte("[[rule]]\nprogram = \"head\"\ndecision = \"deny\"\n"), 0o644))
	user := filepath.Join(config, "vtexec", "policy.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o755))
	require.NoError(t, os.Symlink(real, user))
	d, err := checkWithin(t, Request{Command: "head src/a\\ b.txt", Workspace: dir, AuditLog: "off"})
	require.NoError(t, err)
	assert.Equal(t, "deny", string(d.Decision))

	require.NoError(t, os.Remove(user))
	require.NoError(t, os.Symlink("/dev/zero", user))
	_, err = checkWithin(t, Request{Command: "head src/a\\ b.txt", Workspace: dir, AuditLog: "off"})
	var re *RequestError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, "bad_policy", re.Code)
}
