package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// $PWD expands to the cwd, as in bash, and the result is checked like
// any path; every other expansion, and $PWD with an operator, stays
// refused.
func TestPWDTable(t *testing.T) {
	checkTable(t, []tableCase{
		{"echo $PWD", allow},
		{"ls ${PWD}/src", allow},
		{`cat "$PWD/README.md"`, allow},
		{"cd src && cat $PWD/a.txt", allow},
		{"cat $PWD/../ws2/secret.txt", deny("outside_workspace")},
		{"cat $PWD/sibling/secret.txt", deny("outside_workspace")},
		{"echo hi > $PWD/../out.txt", deny("outside_workspace")},
		{"ls $PWD/*", deny("outside_workspace")}, // escape -> /etc
		{"echo ${PWD:-/etc}", deny("expansion")},
		{"echo ${PWD#/}", deny("expansion")},
		{"echo ${#PWD}", deny("expansion")},
		{"echo ${!PWD}", deny("expansion")},
		{"echo ${PWD/ws/ws2}", deny("expansion")},
		{"echo $OLDPWD", deny("expansion")},
		{"echo $HOME", deny("expansion")},
		// An absolute glob lists only directories inside the workspace.
		{"cat {{WS}}/src/*.txt", allow},
		{"cat $PWD/src/*.txt", allow},
		{"ls {{WS}}/../*", deny("outside_workspace")},
		{"ls $PWD/../ws*/secret.txt", deny("outside_workspace")},
		{"ls /etc/pass*", deny("outside_workspace")},
		{"ls /*/passwd", deny("outside_workspace")},
		{"echo '/etc/*'", allow}, // quoted: no glob
		{"ls src/*/../../../*", deny("outside_workspace")},
		{"ls sibling/*", deny("outside_workspace")},
		{"cat ../ws/src/*.txt", allow}, // lists only ws/src; ".." names the root's own entry
	})
}

// In a cwd with a space or a glob character, bash would split or glob
// an unquoted $PWD: vtexec refuses rather than guess.
func TestPWDRefusedWhereBashWouldSplit(t *testing.T) {
	ws := fixture(t)
	odd := filepath.Join(ws, "a b*")
	require.NoError(t, os.Mkdir(odd, 0o755))
	d, err := standinEngine(t).Check(context.Background(), vtexec.Request{Command: "ls $PWD", Workspace: ws, Cwd: odd})
	require.NoError(t, err)
	assert.Equal(t, "deny", d.Decision)
	assert.Equal(t, "expansion", d.Code)
	d, err = standinEngine(t).Check(context.Background(), vtexec.Request{Command: "ls .", Workspace: ws, Cwd: odd})
	require.NoError(t, err)
	assert.Equal(t, "allow", d.Decision, "only $PWD is refused there")
}
