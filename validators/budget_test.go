package validators

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// The entries a request's check reads are counted for all its operands
// and commands together: two trees that each fit the budget alone do
// not fit it together. A spent deadline ends a walk too.
func TestCheckBudgetIsSharedBetweenOperands(t *testing.T) {
	dir := t.TempDir()
	for _, tree := range []string{"a", "b"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, tree), 0o755))
		for i := range 100 {
			require.NoError(t, os.WriteFile(filepath.Join(dir, tree, fmt.Sprint(i)), nil, 0o644))
		}
	}
	newWS := func(b *workspace.Budget) *workspace.Workspace {
		ws, err := workspace.New(dir)
		require.NoError(t, err)
		ws.SetBudget(b)
		return ws
	}
	for _, argv := range [][]string{
		{"rm", "-r", "a"}, {"cp", "-r", "a", "c"}, {"grep", "-R", "x", "a"},
	} {
		assert.NotEqual(t, CodeCheckLimit, checkCode(t, newWS(workspace.NewBudget(150, time.Minute)), argv...), "%q alone fits", argv)
	}
	for _, argv := range [][]string{
		{"rm", "-r", "a", "b"}, {"cp", "-r", "a", "b", "c"}, {"grep", "-R", "x", "a", "b"},
	} {
		assert.Equal(t, CodeCheckLimit, checkCode(t, newWS(workspace.NewBudget(150, time.Minute)), argv...), "%q together", argv)
		assert.NotEqual(t, CodeCheckLimit, checkCode(t, newWS(nil), argv...), "%q without a budget", argv)
	}
	// One budget for the request: a second command spends what the
	// first left.
	ws := newWS(workspace.NewBudget(150, time.Minute))
	assert.NotEqual(t, CodeCheckLimit, checkCode(t, ws, "rm", "-r", "a"))
	assert.Equal(t, CodeCheckLimit, checkCode(t, ws, "rm", "-r", "b"))

	assert.Equal(t, CodeCheckLimit, checkCode(t, newWS(workspace.NewBudget(1<<20, 0)), "rm", "-r", "a"), "deadline spent")
}
