package vtexec

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Output that is not UTF-8 reaches a JSON reader exactly, as base64,
// beside a best-effort text.
func TestResultJSONKeepsInvalidUTF8(t *testing.T) {
	dir := testDir(t)
	bin := "ok \xff\xfe end\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin.dat"), []byte(bin), 0o644))
	for cmd, want := range map[string]string{"cat bin.dat": bin, "cat src/a\\ b.txt": "spaced\n"} {
		res, err := testEngine.Run(context.Background(), Request{Command: cmd, Workspace: dir, AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, want, res.Stdout, "the Go value is exact")
		data, err := json.Marshal(res)
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal(data, &v))
		assert.NotContains(t, v, "stderr_base64")
		if want == bin {
			raw, err := base64.StdEncoding.DecodeString(v["stdout_base64"].(string))
			require.NoError(t, err)
			assert.Equal(t, bin, string(raw))
			assert.Equal(t, "ok \uFFFD end\n", v["stdout"])
		} else {
			assert.NotContains(t, v, "stdout_base64")
			assert.Equal(t, want, v["stdout"])
		}
	}
}
