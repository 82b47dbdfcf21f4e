package execpolicy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// planned checks src and returns its plan's commands in order.
func planned(t *testing.T, src string, ws *workspace.Workspace) []Verdict {
	t.Helper()
	v := Check(src, ws)
	require.Equal(t, Allow, v.Decision, "%s: %s", v.Code, v.Reason)
	return []Verdict{*v}
}

func TestRecheckSeesTheTreeAsItIsNow(t *testing.T) {
	ws := testWorkspace(t)
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644))
	v := planned(t, "cat new/secret && echo x > new/out.txt && cd new", ws)[0]
	cmds := v.Plan.Commands()
	require.Len(t, cmds, 3)
	var c Checker
	for _, cmd := range cmds {
		assert.Nil(t, c.Recheck(cmd, ws), "%v: nothing changed yet", cmd.Argv)
	}

	// An earlier part put a link to outside where new/ was missing.
	require.NoError(t, os.Symlink(outside, filepath.Join(ws.Root(), "new")))
	for _, cmd := range cmds {
		got := c.Recheck(cmd, ws)
		require.NotNil(t, got, "%v", cmd.Argv)
		assert.Equal(t, Deny, got.Decision)
		assert.Equal(t, string(workspace.Outside), got.Code, got.Reason)
		assert.NotEmpty(t, got.Hint)
	}
}

func TestRecheckRefusesANewAsk(t *testing.T) {
	ws := testWorkspace(t)
	v := Check("rm src/a.txt", ws)
	require.Equal(t, Ask, v.Decision)
	cmd := v.Plan.Commands()[0]
	require.Equal(t, []string{v.Code}, cmd.Asks)
	var c Checker
	assert.Nil(t, c.Recheck(cmd, ws), "the ask the person approved")

	cmd.Asks = nil // as if the check had found nothing to ask
	got := c.Recheck(cmd, ws)
	require.NotNil(t, got)
	assert.Equal(t, CodeChanged, got.Code, got.Reason)
}

func TestRecheckWorkingDirectoryGone(t *testing.T) {
	ws := testWorkspace(t)
	v := Check("cd src && cat a.txt", ws)
	require.Equal(t, Allow, v.Decision)
	cat := v.Plan.Commands()[1]
	require.NoError(t, os.Rename(filepath.Join(ws.Root(), "src"), filepath.Join(ws.Root(), "src0")))
	var c Checker
	got := c.Recheck(cat, ws)
	require.NotNil(t, got)
	assert.Equal(t, string(workspace.Invalid), got.Code, got.Reason)
}

func TestCpAndMvMayNotShareAPipeline(t *testing.T) {
	ws := testWorkspace(t)
	for _, src := range []string{"mv src x | cat x/a.txt", "ls | cp -r src y", "nice -n 5 cp src/a.txt z | wc -c"} {
		v := Check(src, ws)
		assert.Equal(t, Deny, v.Decision, src)
		assert.Equal(t, CodeBadUsage, v.Code, src)
	}
	assert.Equal(t, Allow, Check("mv src x && cat x/a.txt", ws).Decision)
}

func TestCdIntoADirectoryTheListCreates(t *testing.T) {
	ws := testWorkspace(t)
	v := Check("mkdir gen && cd gen && touch f", ws)
	require.Equal(t, Allow, v.Decision, v.Reason)
	assert.Equal(t, filepath.Join(ws.Root(), "gen"), v.Plan.Commands()[2].Dir)
	for _, src := range []string{"cd ../missing", "cd missing/../../x", "cd src/a.txt/x"} {
		assert.Equal(t, Deny, Check(src, ws).Decision, src)
	}
}
