package execpolicy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

func testWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "a.txt"), []byte("a\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "b.txt"), []byte("b\n"), 0o644))
	ws, err := workspace.New(dir)
	require.NoError(t, err)
	return ws
}

func TestPlanShape(t *testing.T) {
	ws := testWorkspace(t)
	v := Check("cat src/a.txt | wc -l && ls || echo no; pwd", ws)
	require.Equal(t, Allow, v.Decision, v.Reason)
	require.Len(t, v.Plan.Steps, 4)
	assert.Equal(t, []plan.Op{plan.Seq, plan.And, plan.Or, plan.Seq},
		[]plan.Op{v.Plan.Steps[0].Op, v.Plan.Steps[1].Op, v.Plan.Steps[2].Op, v.Plan.Steps[3].Op})
	first := v.Plan.Steps[0].Pipeline.Cmds
	require.Len(t, first, 2)
	assert.Equal(t, []string{"cat", "src/a.txt"}, first[0].Argv)
	assert.Equal(t, []string{"wc", "-l"}, first[1].Argv)
	assert.True(t, filepath.IsAbs(first[0].Program))
	assert.Equal(t, ws.Root(), first[0].Dir)
}

func TestWordsExpandLikeBash(t *testing.T) {
	ws := testWorkspace(t)
	tests := map[string][]string{
		`echo 'a b' "c d" e\ f`:     {"echo", "a b", "c d", "e f"},
		`echo $'tab\there' $'\x41'`: {"echo", "tab\there", "A"},
		`echo "\$x" '\n' \\`:        {"echo", "$x", `\n`, `\`},
		`echo {a,b}.txt`:            {"echo", "a.txt", "b.txt"},
		`cat src/*.txt`:             {"cat", "src/a.txt", "src/b.txt"},
		`cat "src/*.txt"`:           {"cat", "src/*.txt"},
		`ls nomatch*`:               {"ls", "nomatch*"},
		`echo a"b"'c'`:              {"echo", "abc"},
		"echo --\t-n":               {"echo", "--", "-n"},
		`printenv "HOME"`:           {"printenv", "HOME"},
		`bash -c 'echo "in side"'`:  {"echo", "in side"},
		`sh -lc "cat src/a.txt"`:    {"cat", "src/a.txt"},
		`make -j2 all`:              nil, // a developer tool: ask
	}
	c := standinChecker(t, "make")
	for src, want := range tests {
		v := c.Check(src, ws)
		if want == nil {
			assert.Equal(t, Ask, v.Decision, src)
			continue
		}
		require.Equal(t, Allow, v.Decision, "%s: %s", src, v.Reason)
		cmds := v.Plan.Commands()
		require.Len(t, cmds, 1, src)
		assert.Equal(t, want, cmds[0].Argv, src)
	}
}

// On Windows a drive path typed as Git Bash, MSYS2 or Cygwin spell it
// is converted as their runtime converts it for a native program,
// before the check: the plan runs what was checked, and shows it.
func TestMSYSDrivePathsAreConvertedBeforeTheCheck(t *testing.T) {
	ws := testWorkspace(t)
	src := `echo /c/work/a.txt --dir=/cygdrive/d/x/ /usr/bin -C/c/x s/c/d/`
	old := msysHost
	t.Cleanup(func() { msysHost = old })
	msysHost = true
	v := Check(src, ws)
	require.Equal(t, Allow, v.Decision, v.Reason)
	assert.Equal(t, []string{"echo", "C:/work/a.txt", "--dir=D:/x/", "/usr/bin", "-C/c/x", "s/c/d/"}, v.Plan.Commands()[0].Argv)
	msysHost = false
	v = Check(src, ws)
	require.Equal(t, Allow, v.Decision, v.Reason)
	assert.Equal(t, []string{"echo", "/c/work/a.txt", "--dir=/cygdrive/d/x/", "/usr/bin", "-C/c/x", "s/c/d/"}, v.Plan.Commands()[0].Argv)
}

func TestCdMovesLaterCommands(t *testing.T) {
	ws := testWorkspace(t)
	v := Check("cd src && cat a.txt; cat ../src/b.txt", ws)
	require.Equal(t, Allow, v.Decision, v.Reason)
	cmds := v.Plan.Commands()
	require.Len(t, cmds, 3)
	assert.Equal(t, "cd", cmds[0].Builtin)
	assert.Equal(t, ws.Root(), cmds[0].Dir)
	assert.Equal(t, filepath.Join(ws.Root(), "src"), cmds[1].Dir)
	assert.Equal(t, filepath.Join(ws.Root(), "src"), cmds[2].Dir)
	assert.Equal(t, ws.Root(), ws.Cwd(), "Check must not move the caller's workspace")

	v = Check("cd src && cat a.txt", ws)
	require.Equal(t, Allow, v.Decision)
	v = Check("cat a.txt", ws) // a.txt does not exist at the root, but it is inside
	require.Equal(t, Allow, v.Decision)
}

func TestRedirectPlan(t *testing.T) {
	ws := testWorkspace(t)
	v := Check("ls >out.txt 2>&1 && ls 2>/dev/null >>log.txt && wc -l <src/a.txt && ls &>/dev/null", ws)
	require.Equal(t, Allow, v.Decision, v.Reason)
	cmds := v.Plan.Commands()
	out := filepath.Join(ws.Root(), "out.txt")
	assert.Equal(t, []plan.Redirect{{Fd: 1, Kind: plan.Write, Path: out}, {Fd: 2, Kind: plan.Dup, DupFd: 1}}, cmds[0].Redirects)
	assert.Equal(t, []plan.Redirect{{Fd: 2, Kind: plan.Write, Path: "/dev/null"}, {Fd: 1, Kind: plan.Append, Path: filepath.Join(ws.Root(), "log.txt")}}, cmds[1].Redirects)
	assert.Equal(t, []plan.Redirect{{Fd: 0, Kind: plan.Read, Path: filepath.Join(ws.Root(), "src", "a.txt")}}, cmds[2].Redirects)
	assert.Equal(t, []plan.Redirect{{Fd: 1, Kind: plan.Write, Path: "/dev/null"}, {Fd: 2, Kind: plan.Dup, DupFd: 1}}, cmds[3].Redirects)
}

func TestStrictestWins(t *testing.T) {
	ws := testWorkspace(t)
	c := standinChecker(t, "make")
	// ask then deny: deny wins, whatever the order.
	for _, src := range []string{"make && cat /etc/passwd", "cat /etc/passwd; make"} {
		v := c.Check(src, ws)
		assert.Equal(t, Deny, v.Decision, src)
		assert.Equal(t, "outside_workspace", v.Code, src)
	}
	v := c.Check("ls && make", ws)
	assert.Equal(t, Ask, v.Decision)
	require.NotNil(t, v.Plan)
	assert.Len(t, v.Plan.Commands(), 2, "a refused plan still shows every part")
}

func TestShellNestingLimit(t *testing.T) {
	ws := testWorkspace(t)
	v := Check(`bash -c "bash -c 'bash -c \"bash -c ls\"'"`, ws)
	assert.Equal(t, Deny, v.Decision)
	assert.Equal(t, CodeForbiddenProgram, v.Code)
}

func TestTooLong(t *testing.T) {
	ws := testWorkspace(t)
	big := make([]byte, MaxCommandBytes+1)
	for i := range big {
		big[i] = 'a'
	}
	v := Check(string(big), ws)
	assert.Equal(t, CodeTooLong, v.Code)
}

func TestPartsOnePerCommandAndWrappedCommand(t *testing.T) {
	ws := testWorkspace(t)
	v := standinChecker(t, "make").Check("timeout 5 make test && cat /etc/passwd; ls src", ws)
	require.Equal(t, Deny, v.Decision)
	require.Len(t, v.Parts, 4)
	want := []struct {
		argv0    string
		decision Decision
	}{{"timeout", Allow}, {"make", Ask}, {"cat", Deny}, {"ls", Allow}}
	for i, w := range want {
		assert.Equal(t, w.argv0, v.Parts[i].Argv[0])
		assert.Equal(t, w.decision, v.Parts[i].Decision, v.Parts[i].Reason)
	}
	assert.True(t, filepath.IsAbs(v.Parts[1].Program))

	v = Check("find . | xargs wc -l", ws)
	require.Equal(t, Ask, v.Decision)
	assert.True(t, v.NeverAlways, "a wrapper's unseen arguments are never approvable always")
}

func TestCanonicalProgram(t *testing.T) {
	for in, want := range map[string]string{
		"python3.11": "python", "perl5.36.0": "perl", "bash5.2": "bash", "gcc-12": "gcc", "node18": "node",
		"python": "python", "sha256sum": "sha256sum", "x86_64": "x86_64", "7z": "7z", "b2": "b2",
	} {
		assert.Equal(t, want, canonicalProgram(in), in)
	}
}

// An unquoted "$(cat <<'EOF' …)" is refused with the way to write it.
func TestUnquotedHereDocSubstitutionHint(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	require.NoError(t, err)
	v := Check("echo $(cat <<'EOF'\nx y\nEOF\n)", ws)
	assert.Equal(t, CodeSubstitution, v.Code)
	assert.Contains(t, v.Hint, "double quotes")
	v = Check("echo $(id)", ws)
	assert.NotContains(t, v.Hint, "double quotes")
}
