package execpolicy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// A request has a cap on pipeline stages and simple commands, refused at
// check time with too_long, never left to fail in the runner.
func TestCommandCountCaps(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	require.NoError(t, err)
	for _, c := range []struct {
		src  string
		code string
	}{
		{"ls" + strings.Repeat(" | cat", 499), CodeTooLong},
		{"ls" + strings.Repeat(" | cat", MaxPipelineStages), CodeTooLong},
		{"ls" + strings.Repeat(" | cat", MaxPipelineStages-1), ""},
		{"ls" + strings.Repeat(" && ls", MaxCommands), CodeTooLong},
		{"ls" + strings.Repeat("; ls", MaxCommands-1), ""},
		{"ls" + strings.Repeat("; ls; :", MaxCommands-1), ""}, // : does nothing, and costs nothing
		{"bash -c 'ls" + strings.Repeat(" | cat", MaxPipelineStages) + "'", CodeTooLong},
	} {
		v := Check(c.src, ws)
		assert.Equal(t, c.code, v.Code, "%.40s…: %s", c.src, v.Reason)
		if c.code != "" {
			assert.Equal(t, Deny, v.Decision)
			assert.NotEmpty(t, v.Hint)
		}
	}
}
