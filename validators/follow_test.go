package validators

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// A tree whose links lead inside, through other links, in loops, nowhere,
// and (from bridge, reached through hop) out of the workspace.
func followWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, d := range []string{"plain", "inner", "hop", "bridge", "loop", "dangle", "dangleout"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain", "a.txt"), []byte("x\n"), 0o644))
	for link, target := range map[string]string{
		"inner/l":     "../plain",
		"inner/f":     "../plain/a.txt",
		"hop/l":       "../bridge",
		"bridge/x":    "/etc",
		"loop/self":   ".",
		"loop/up":     "../loop",
		"dangle/d":    "../nothing",
		"dangleout/d": "/nonexistent-vtexec-target",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(dir, link)))
	}
	ws, err := workspace.New(dir)
	require.NoError(t, err)
	return ws
}

func TestFollowedTrees(t *testing.T) {
	ws := followWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("grep -R x plain inner loop dangle"), ""},
		{splitArgv("grep -R x hop"), codeOutside},
		{splitArgv("grep -R x bridge"), codeOutside},
		{splitArgv("grep -R x dangleout"), codeOutside},
		{splitArgv("grep -R x"), codeOutside}, // no operand: the current directory
		{splitArgv("grep --dereference-recursive x plain hop"), codeOutside},
		{splitArgv("grep -r x hop bridge dangleout"), ""},
		{splitArgv("rg -L x inner loop"), ""},
		{splitArgv("rg -L x hop"), codeOutside},
		{splitArgv("rg --follow --files hop"), codeOutside},
		{splitArgv("rg x hop bridge"), ""},
		{splitArgv("diff -r plain inner"), ""},
		{splitArgv("diff -r hop plain"), codeOutside},
		{splitArgv("diff plain hop"), codeOutside},
		{splitArgv("diff -r --no-dereference hop plain"), ""},
	})
}
