//go:build linux

package security

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A file vtexec reads from a repository to check it (a git directory's
// alternates, a nested git directory's commondir) is read with bounds:
// a named pipe there, which a plain read waits on forever, or a file of
// gigabytes, makes the check refuse, not hang or fill the memory.
func TestRepositoryFilesAreReadWithBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string // below .git
	}{
		{"alternates", "objects/info/alternates"},
		{"module commondir", "modules/sub/commondir"},
	} {
		for _, kind := range []string{"fifo", "huge"} {
			t.Run(tc.name+" "+kind, func(t *testing.T) {
				ws := t.TempDir()
				out, err := exec.Command("git", "init", "-q", ws).CombinedOutput()
				require.NoError(t, err, "%s", out)
				p := filepath.Join(ws, ".git", tc.file)
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				if filepath.Base(filepath.Dir(p)) == "sub" {
					require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(p), "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
				}
				if kind == "fifo" {
					require.NoError(t, unix.Mkfifo(p, 0o644))
				} else {
					f, err := os.Create(p)
					require.NoError(t, err)
					require.NoError(t, f.Truncate(4<<30)) // sparse: 4 GiB read as zeros
					f.Close()
				}
				state := t.TempDir()
				cmd := exec.Command(builtVtexec(t), "check", "--json", "--workspace", ws, "--", "git status")
				cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + state, "XDG_CONFIG_HOME=" + state, "XDG_STATE_HOME=" + state}
				done := make(chan []byte, 1)
				require.NoError(t, func() error {
					r, w, err := os.Pipe()
					if err != nil {
						return err
					}
					cmd.Stdout = w
					if err := cmd.Start(); err != nil {
						return err
					}
					w.Close()
					go func() {
						var buf []byte
						b := make([]byte, 4096)
						for {
							n, err := r.Read(b)
							buf = append(buf, b[:n]...)
							if err != nil {
								break
							}
						}
						done <- buf
					}()
					return nil
				}())
				select {
				case out := <-done:
					cmd.Wait()
					var d struct{ Decision, Code, Reason string }
					require.NoError(t, json.Unmarshal(out, &d), "%s", out)
					assert.Equal(t, "deny", string(d.Decision), d.Reason)
				case <-time.After(20 * time.Second):
					cmd.Process.Kill()
					t.Fatal("the check hung on the file")
				}
			})
		}
	}
}
