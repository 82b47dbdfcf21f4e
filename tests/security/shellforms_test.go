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

// test, [ and [[ ]]: file tests, string and number comparisons; every word
// that could name a path outside the workspace is refused, so they are
// no oracle for what exists outside. [[ ]] is turned into test only
// where both mean the same.
func TestTestForms(t *testing.T) {
	checkTable(t, []tableCase{
		{"test -f README.md", allow},
		{"[ -d src ]", allow},
		{"[ -f README.md ] && cat README.md", allow},
		{"[ README.md -nt file.txt ]", allow},
		{"[ 3 -gt 2 ]", allow},
		{`[ "a" != "b" ]`, allow},
		{"[ -n hello -a -z '' ]", allow},
		{"[[ -f README.md ]]", allow},
		{"[[ -d src ]] && ls src", allow},
		{`[[ abc == "a*" ]]`, allow},
		{"[[ 1 -lt 2 ]] || echo no", allow},
		{"[[ $PWD == {{WS}} ]]", allow},
		// No oracle outside.
		{"test -e /etc/passwd", deny("outside_workspace")},
		{"[ -f ~/.ssh/id_rsa ]", deny("outside_workspace")},
		{"[ -e ../ws2/secret.txt ]", deny("outside_workspace")},
		{"[ -e sibling/secret.txt ]", deny("outside_workspace")},
		{"[ -e escape/passwd ]", deny("outside_workspace")},
		{"[ x = x -o -e /root ]", deny("outside_workspace")},
		{"[ src/a.txt -ef /etc/hosts ]", deny("outside_workspace")},
		{"[[ -e /etc/shadow ]]", deny("outside_workspace")},
		{"[[ -e ~/.aws ]]", deny("control_flow")}, // a tilde: [[ ]] and a word differ
		// What [[ ]] and test do not share.
		{"[[ abc == a* ]]", deny("control_flow")},
		{"[[ -f a && -f b ]]", deny("control_flow")},
		{"[[ x =~ y ]]", deny("control_flow")},
		{"[[ a < b ]]", deny("control_flow")},
		{"[[ ! -f a ]]", deny("control_flow")},
		{"[[ ( -f a ) ]]", deny("control_flow")},
		{"[[ -f {a,b} ]]", deny("control_flow")},
		{"[[ -v HOME ]]", deny("control_flow")},
		{"[[ -f $(id) ]]", deny("substitution")},
		{"[[ -f $HOME ]]", deny("expansion")},
		// : and exit.
		{":", allow},
		{": > file.txt", allow},
		{": > ../ws2/x", deny("outside_workspace")},
		{"ls || exit 1", allow},
		{"exit 3", allow},
		{"exit 256", deny("bad_usage")},
		{"exit -1", deny("bad_usage")},
		{"exit 1 2", deny("bad_usage")},
		{"exit x", deny("bad_usage")},
	})
}

// exit ends the run with its status, as in bash; in a pipeline it ends
// only its own part.
func TestExitEndsTheRun(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct {
		cmd    string
		out    string
		status int
	}{
		{"ls nope || exit 3; echo after", "", 3},
		{"echo one; exit; echo two", "one\n", 0},
		{"false; exit", "", 1},
		{"echo a | exit 4; echo b", "b\n", 0},
		{"[ -f README.md ] && echo yes", "yes\n", 0},
		{"[[ -f nope ]] || echo no", "no\n", 0},
		{": > file.txt; cat file.txt; echo done", "done\n", 0},
	} {
		res := runIn(t, ws, tc.cmd)
		assert.Equal(t, tc.status, res.ExitCode, "%s: %s", tc.cmd, res.Stderr)
		assert.Equal(t, tc.out, res.Stdout, tc.cmd)
	}
}
