package projects

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// One engine checks the sessions' commands on several goroutines at
// once, as a check stream and the MCP server do, and answers each as it
// does alone: nothing in the checker, the validators or the caches
// behind them is shared without a lock. Under the race detector (CI's
// race step) an unguarded write anywhere on these paths fails it.
func TestSessionsCheckTheSameConcurrently(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, name := range []string{"go", "python", "node", "rust"} {
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("testdata", name+".session"))
			require.NoError(t, err)
			steps, err := ParseSession(string(text))
			require.NoError(t, err)
			ws := t.TempDir()
			out, err := exec.Command("cp", "-a", filepath.Join("testdata", name)+"/.", ws).CombinedOutput()
			require.NoError(t, err, "%s", out)
			git := exec.Command("git", "init", "-q", ws)
			git.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
			out, err = git.CombinedOutput()
			require.NoError(t, err, "%s", out)

			e := vtexec.NewEngine(vtexec.Config{})
			defer e.Close()
			verdict := func(cmd string) string {
				d, err := e.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
				if err != nil {
					return "error: " + err.Error()
				}
				return fmt.Sprintf("%s %s", d.Decision, d.Code)
			}
			alone := make([]string, len(steps))
			for i, st := range steps {
				alone[i] = verdict(st.Command)
			}
			const goroutines = 4
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range steps {
						i := (k + g*len(steps)/goroutines) % len(steps)
						if got := verdict(steps[i].Command); got != alone[i] {
							t.Errorf("line %d %q: %s on one goroutine of %d, %s alone", steps[i].Line, steps[i].Command, got, goroutines, alone[i])
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}
