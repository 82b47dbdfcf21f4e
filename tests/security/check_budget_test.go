//go:build !windows

package security

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A check has a deadline of its own inside the request's timeout (half
// of it, at most 10 s): a command whose check would walk a big tree or
// glob a big directory is refused with check_limit when the deadline
// passes, instead of the check running on past the request's time. With
// the default timeout the same commands are checked to the end.
func TestCheckHasADeadlineOfItsOwn(t *testing.T) {
	ws := t.TempDir()
	big := filepath.Join(ws, "big")
	require.NoError(t, os.Mkdir(big, 0o755))
	for i := range 20000 {
		require.NoError(t, os.WriteFile(filepath.Join(big, fmt.Sprint(i)), nil, 0o644))
	}
	state := t.TempDir()
	run := func(timeout, line string) (string, time.Duration) {
		args := []string{"run", "--json", "--audit", "off", "--workspace", ws}
		if timeout != "" {
			args = append(args, "--timeout", timeout)
		}
		cmd := exec.Command(builtVtexec(t), append(args, "--", line)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + state, "XDG_CONFIG_HOME=" + state, "XDG_STATE_HOME=" + state}
		start := time.Now()
		out, _ := cmd.Output()
		var res struct {
			Decision struct{ Code string } `json:"decision"`
		}
		require.NoError(t, json.Unmarshal(out, &res), "%s", out)
		return res.Decision.Code, time.Since(start)
	}
	for _, line := range []string{"rm -r big", "ls big/*", "grep -R x big"} {
		code, took := run("2ms", line)
		assert.Equal(t, "check_limit", code, line)
		assert.Less(t, took, 10*time.Second, line)
		code, _ = run("", line)
		assert.NotEqual(t, "check_limit", code, line)
	}
}
