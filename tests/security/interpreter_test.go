package security

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// A word known only when the command runs ($(…), a variable) is checked
// with the value it has, at the command that uses it: a substitution that
// makes an outside path, a forbidden flag, a protected name, too many
// words or a loop without end is refused there, and nothing after it
// runs. Each probe does what it tries in bash (the attack is real).
func TestRunTimeWordsAreCheckedWhereUsed(t *testing.T) {
	cases := []struct {
		name, cmd string
		code      string
		// inBash is what the same command does in bash: a file it made,
		// or a line in its output.
		inBash string
	}{
		{"an outside path from a substitution", `f=$(echo ../ws2/secret.txt); cat "$PWD/$f"`, "outside_workspace", "out:secret"},
		{"an outside path from an expansion", `d=../ws2; cat ${d}/secret.txt`, "outside_workspace", "out:secret"},
		{"an outside path through a link", `d=sibling; cat $d/secret.txt`, "outside_workspace", "out:secret"},
		{"a forbidden flag from a substitution", `flag=$(printf -- '--compress-program=touch'); sort "$flag" -S 1 file.txt`, "forbidden_flag", ""},
		{"a protected name from a variable", `d=.git; echo x > "$d/config"`, "protected_path", ""},
		{"a git hook from a substitution", `cp file.txt $(echo .git/hooks/pre-commit)`, "protected_path", "file:.git/hooks/pre-commit"},
		{"a redirect outside from a variable", `o=../ws2/pwned.txt; echo pwned > $o`, "outside_workspace", "file:../ws2/pwned.txt"},
		{"a cd outside from a variable", `d=..; cd $d; cat ws2/secret.txt`, "outside_workspace", "out:secret"},
		{"a git setting from a variable", `v=$(echo /tmp); GIT_DIR=$v git status`, "assignment", ""},
		{"ten thousand words", `ls $(seq 1 10000)`, "word_limit", ""},
		{"a loop without end", `while :; do :; done`, "command_limit", ""},
		{"a loop without a command", `while [[ 1 ]]; do x=1; done`, "loop_limit", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := fixture(t)
			after := filepath.Join(ws, "after.txt")
			res := runIn(t, ws, tc.cmd+"; touch after.txt")
			require.NotNil(t, res.Stopped, "%s: it ran: %+v", tc.cmd, res)
			assert.Equal(t, tc.code, res.Stopped.Code, "%s: %s", tc.cmd, res.Stopped.Reason)
			assert.NotEmpty(t, res.Stopped.Hint)
			assert.Equal(t, vtexec.ExitRefused, res.ExitCode)
			assert.NoFileExists(t, after, "nothing after the refused command runs")
			assert.NotContains(t, res.Stdout, "secret")
			assert.NoFileExists(t, filepath.Join(ws, ".git/hooks/pre-commit"))
			assert.NoFileExists(t, filepath.Join(filepath.Dir(ws), "ws2", "pwned.txt"))
			if tc.inBash == "" {
				return
			}
			bws := fixture(t)
			out := bash(t, bws, tc.cmd)
			kind, what, _ := strings.Cut(tc.inBash, ":")
			if kind == "out" {
				assert.Contains(t, out, what, "in bash the probe reaches it")
			} else {
				assert.FileExists(t, filepath.Join(bws, what), "in bash the probe makes it")
			}
		})
	}
}

// bash runs cmd in dir with bash, for what the probe does unchecked.
func bash(t *testing.T, dir, cmd string) string {
	t.Helper()
	c := exec.Command("bash", "--norc", "-c", cmd)
	c.Dir = dir
	out, _ := c.CombinedOutput()
	return string(out)
}

// Globs and file tests read only the workspace: a glob outside matches
// nothing and a test of an outside path is false, so neither is an
// oracle for what exists there. bash answers both.
func TestRunTimeGlobsAndTestsStayInside(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct{ cmd, vtexec, bash string }{
		{`d=/etc; echo $d/hostn*`, "/etc/hostn*\n", "/etc/hostname\n"},
		{`d=escape; echo $d/hostn*`, "escape/hostn*\n", "escape/hostname\n"},
		{`f=/etc/hostname; [[ -e $f ]] && echo yes || echo no`, "no\n", "yes\n"},
		{`f=/etc/hostname; test -f "$f" && echo yes || echo no`, "no\n", "yes\n"},
		{`f=sibling/secret.txt; [ -s "$f" ] && echo yes || echo no`, "no\n", "yes\n"},
		{`echo src/*.go`, "src/b.go\n", "src/b.go\n"},
		{`f=README.md; [[ -f $f ]] && echo yes`, "yes\n", "yes\n"},
	} {
		res := runIn(t, ws, tc.cmd)
		require.Nil(t, res.Stopped, "%s: %+v", tc.cmd, res.Stopped)
		assert.Equal(t, tc.vtexec, res.Stdout, tc.cmd)
		assert.Equal(t, tc.bash, bash(t, ws, tc.cmd), "%s: in bash, the probe answers", tc.cmd)
	}
}

// A program's name must be written out; the builtins that would run or
// change what runs are refused before anything runs.
func TestRunTimeRefusesComputedProgramsAndEscapes(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct{ cmd, code string }{
		{`p=./scripts/run.sh; touch before.txt; $p`, "substitution"},
		{`$(echo rm) -rf src`, "substitution"},
		{`touch before.txt; eval "cat $(echo ../ws2/secret.txt)"`, "shell_builtin"},
		{`touch before.txt; source scripts/run.sh`, "shell_builtin"},
		{`touch before.txt; x=1; exec cat file.txt`, "shell_builtin"},
		{`touch before.txt; trap 'cat /etc/passwd' EXIT; echo $x`, "shell_builtin"},
		{`touch before.txt; alias ls='cat /etc/passwd'; ls $x`, "shell_builtin"},
		{`touch before.txt; builtin echo $x`, "shell_builtin"},
		{`touch before.txt; command cat $x`, "shell_builtin"},
		{`touch before.txt; export PATH=/tmp; ls $x`, "assignment"},
		{`touch before.txt; f() { cat $1; }; f ../ws2/secret.txt`, "control_flow"},
		{`touch before.txt; cat $x &`, "background"},
		{`touch before.txt; diff <(cat ../ws2/secret.txt) file.txt`, "outside_workspace"},
		{`touch before.txt; tee >(cat) < file.txt`, "substitution"},
	} {
		d, err := testEngine.Check(context.Background(), vtexec.Request{Command: tc.cmd, Workspace: ws})
		require.NoError(t, err)
		assert.Equal(t, "deny", string(d.Decision), tc.cmd)
		assert.Equal(t, tc.code, d.Code, "%s: %s", tc.cmd, d.Reason)
		res := runIn(t, ws, tc.cmd)
		assert.Equal(t, vtexec.ExitRefused, res.ExitCode, tc.cmd)
		assert.NoFileExists(t, filepath.Join(ws, "before.txt"), "%s: refused before anything runs", tc.cmd)
	}
}

// A loop under its bounds still ends at the request's timeout.
func TestRunTimeLoopEndsAtTheTimeout(t *testing.T) {
	ws := fixture(t)
	start := time.Now()
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: `while [[ 1 ]]; do sleep 0.2; done`, Workspace: ws, AuditLog: "off", Timeout: time.Second})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, 124, res.ExitCode)
	assert.Less(t, time.Since(start), 20*time.Second)
}

// A command substitution's output is bounded: a command that writes
// more is stopped.
func TestRunTimeSubstitutionOutputIsBounded(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("x", 2<<20)), 0o644))
	res := runIn(t, ws, `x=$(cat big.txt); touch after.txt`)
	require.NotNil(t, res.Stopped)
	assert.Equal(t, "substitution_limit", res.Stopped.Code)
	assert.NoFileExists(t, filepath.Join(ws, "after.txt"))
}

// The commands the interpreter runs are in the request's kernel box: an
// approved workspace program reached at run time cannot read outside,
// and does unconfined (the probe works).
func TestRunTimeCommandsRunInTheBox(t *testing.T) {
	ws := fixture(t)
	canary := filepath.Join(filepath.Dir(ws), "ws2", "secret.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "bin/tool"), []byte("#!/bin/sh\necho ran \"$1\"\ncat "+canary+"\n"), 0o755))
	cmd := `arg=$(echo one); ./bin/tool "$arg"; echo "exit $?"`
	ap := &onceApprover{}
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, Approver: ap, AuditLog: "off"})
	require.NoError(t, err)
	require.Len(t, ap.asked, 1, "asked when it was reached: %+v", res)
	assert.Equal(t, `./bin/tool one`, ap.asked[0].Command, "the person sees the final words")
	assert.Equal(t, "ran one\nexit 1\n", res.Stdout, "%+v", res)
	ap = &onceApprover{}
	res, err = testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, Approver: ap, AuditLog: "off", Confinement: "off"})
	require.NoError(t, err)
	assert.Equal(t, "ran one\nsecret\nexit 0\n", res.Stdout, "unconfined, the same tool reads it")
}

// Where no person can be asked, a command that needs one stops the run
// when it is reached, with what ran before it said; one known before the
// run is refused up front, naming the line that approves it ahead.
func TestRunTimeAsksWithoutAPerson(t *testing.T) {
	ws := fixture(t)
	res := runIn(t, ws, `f=$(echo file.txt); echo "$f"; rm "$f"; touch after.txt`)
	require.NotNil(t, res.Stopped, "%+v", res)
	assert.Equal(t, "needs_approval", res.Stopped.Code)
	assert.Contains(t, res.Stopped.Reason, "ran before it: echo file.txt")
	assert.Equal(t, "file.txt\n", res.Stdout)
	assert.FileExists(t, filepath.Join(ws, "file.txt"))
	assert.NoFileExists(t, filepath.Join(ws, "after.txt"))

	res = runIn(t, ws, `rm file.txt; echo "exit $?"`)
	assert.Nil(t, res.Stopped)
	assert.Equal(t, "needs_approval", res.Decision.Code)
	assert.Contains(t, res.Decision.Hint, "vtexec policy allow -- rm file.txt")
	assert.FileExists(t, filepath.Join(ws, "file.txt"))
}

// The named pipes of <(…) are in a directory the box's programs may read
// and not change: a program given one cannot put a link in its place for
// vtexec to open and write through. Unconfined, the same program can.
func TestRunTimePipesCannotBeSwapped(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "bin"), 0o755))
	target := filepath.Join(t.TempDir(), "written")
	script := "#!/bin/sh\nrm -f \"$1\" 2>/dev/null && ln -s " + target + " \"$1\" 2>/dev/null && echo swapped || echo kept\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "bin/tool"), []byte(script), 0o755))
	cmd := `./bin/tool <(echo data)`
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, Approver: &onceApprover{}, AuditLog: "off"})
	require.NoError(t, err)
	assert.Equal(t, "kept\n", res.Stdout, "%+v", res)
	assert.NoFileExists(t, target)
	res, err = testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, Approver: &onceApprover{}, AuditLog: "off", Confinement: "off"})
	require.NoError(t, err)
	assert.Equal(t, "swapped\n", res.Stdout, "unconfined, the program can (the probe works): %+v", res)
}

// A command known before the run that needs a person is asked about
// first, as the request's question; reached with the same words in the
// same directory, it is not asked about again. One reached with other
// words is.
func TestRunTimeAsksOnceForWhatWasAsked(t *testing.T) {
	ws := fixture(t)
	ap := &onceApprover{}
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: `rm file.txt; x=$(echo README.md); echo "gone, $x stays"`, Workspace: ws, Approver: ap, AuditLog: "off"})
	require.NoError(t, err)
	require.Len(t, ap.asked, 1, "%+v", ap.asked)
	assert.Equal(t, "gone, README.md stays\n", res.Stdout, "%+v", res)
	assert.NoFileExists(t, filepath.Join(ws, "file.txt"))

	ap = &onceApprover{}
	res, err = testEngine.Run(context.Background(), vtexec.Request{Command: `rm src/a.txt; f=$(echo src/b.go); rm "$f"`, Workspace: ws, Approver: ap, AuditLog: "off"})
	require.NoError(t, err)
	require.Len(t, ap.asked, 2, "the second rm's words were not seen before the run: %+v", ap.asked)
	assert.Equal(t, "rm src/b.go", ap.asked[1].Command)
	assert.NoFileExists(t, filepath.Join(ws, "src/b.go"))
}

type denyApprover struct{ asked int }

func (a *denyApprover) Approve(context.Context, vtexec.Question) (vtexec.Answer, error) {
	a.asked++
	return vtexec.AnswerDeny, nil
}

// A person's no to a command reached at run time stops the run there;
// what ran before it is reported with its output.
func TestRunTimePersonRefusesAtTheCommand(t *testing.T) {
	ws := fixture(t)
	ap := &denyApprover{}
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: `f=file.txt; echo one; rm "$f"; echo two`, Workspace: ws, Approver: ap, AuditLog: "off"})
	require.NoError(t, err)
	assert.Equal(t, 1, ap.asked)
	require.NotNil(t, res.Stopped)
	assert.Equal(t, "denied_by_user", res.Stopped.Code)
	assert.Equal(t, "one\n", res.Stdout)
	assert.Equal(t, vtexec.ExitRefused, res.ExitCode)
	assert.FileExists(t, filepath.Join(ws, "file.txt"))
}

// A bracket expression the shell library turns into no regular
// expression (a range ending in an escaped or quoted character, [N-\*])
// made the library panic wherever it was expanded: the checker, a loop's
// words, the interpreter at run time — one line from an agent ended a
// check, a run or the MCP server. Written out, it is refused before
// anything runs; from a value known only at run time, the run stops at
// the command that uses it.
func TestUnreadablePatternsEndNoProcess(t *testing.T) {
	ws := fixture(t)
	for _, cmd := range []string{`ls [N'-*']`, `cat [N-\*]`, `p=x; cat [N'-*'] $p`, `p='[N-\*]'; cat $p | wc -l`, `case x in [N-\*]) ls;; esac`} {
		d := decide(t, ws, cmd)
		assert.Equal(t, "deny", string(d.Decision), cmd)
		assert.Equal(t, "parse_error", d.Code, "%s: %s", cmd, d.Reason)
		assert.NotEmpty(t, d.Hint)
	}
	after := filepath.Join(ws, "after.txt")
	res := runIn(t, ws, `p=$(echo '[N-\*]'); cat $p; touch after.txt`)
	require.NotNil(t, res.Stopped, "it ran: %+v", res)
	assert.Equal(t, "parse_error", res.Stopped.Code, res.Stopped.Reason)
	assert.Equal(t, vtexec.ExitRefused, res.ExitCode)
	assert.NoFileExists(t, after, "nothing after the stop runs")
}

// The same pattern as a value known only at run time, in a command the
// shell library runs on a goroutine of its own (every command of a
// pipeline but the last, a process substitution), panicked where no
// recover reaches: a repository holding a file named [N-\*] ended the
// MCP server, every session on it, the first time an agent piped a
// file name it had listed. Such a value may not stand unquoted there:
// the request is refused before anything runs, whatever made the value.
func TestRunTimePatternsOffTheMainGoroutineEndNoProcess(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, `[N-\*]`), []byte("x\n"), 0o644))
	for _, cmd := range []string{
		`f=$(ls | grep -F N-); cat $f | wc -l`,
		`for f in $(ls | grep -F N-); do cat $f | wc -l; done`,
		`read -r f < <(ls | grep -F N-); cat $f | wc -l`,
		`f=$(ls | grep -F N-); cat $f/x 2>&1 | wc -l`,
		`f=$(ls | grep -F N-); echo ${f#$f} | wc -l`,
		`f=$(ls | grep -F N-); wc -l <(cat $f)`,
		`ls $(ls | grep -F N-) | wc -l`,
	} {
		after := filepath.Join(ws, "after.txt")
		res := runIn(t, ws, cmd+"; touch after.txt")
		assert.Equal(t, "deny", string(res.Decision.Decision), "%s ran: %+v", cmd, res)
		assert.Equal(t, "expansion", res.Decision.Code, "%s: %s", cmd, res.Decision.Reason)
		assert.Contains(t, res.Decision.Hint, "quote it", cmd)
		assert.Equal(t, vtexec.ExitRefused, res.ExitCode, cmd)
		assert.NoFileExists(t, after, cmd)
	}
	// Quoted, or in the pipeline's last command, the same value is data.
	res := runIn(t, ws, `f=$(ls | grep -F N-); cat "$f" | wc -l`)
	require.Nil(t, res.Stopped, "%+v", res)
	assert.Equal(t, "1\n", res.Stdout)
}

// A value known only at run time in the pattern of a case item or
// [[ == ]], or unquoted in that of ${x#…}, reaches the shell library's
// translator, which vtexec cannot bound: one line of unclosed brackets
// made a run take minutes past its timeout, and unclosed extglob groups
// would take days (case and [[ ]] read them whatever the options, and
// quoting does not escape them). Such a request is refused before
// anything runs; [ "$a" = "$b" ] compares the text, and a run-time value
// may be what a case matches.
func TestRunTimeValuesAreNoPatterns(t *testing.T) {
	ws := fixture(t)
	line := strings.Repeat("[", 20000) + strings.Repeat("x", 20000) + "*\n" + strings.Repeat("@(", 40) + "x\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "lines.txt"), []byte(line), 0o644))
	for _, cmd := range []string{
		`while read -r l; do case a in $l) echo y;; esac; done < lines.txt`,
		`l=$(head -n 1 lines.txt); case a in x|$l) echo y;; esac`,
		`l=$(head -n 1 lines.txt); [[ a == $l ]] && echo y`,
		`l=$(tail -n 1 lines.txt); [[ a != x$l ]] && echo y`,
		`l=$(head -n 1 lines.txt); echo ${l#$l}`,
		`l=$(head -n 1 lines.txt); echo ${l/$l/y}`,
		`for l in $(cat lines.txt); do echo ${l%%$l}; done`,
		`while read -r l; do case a in "$l") echo y;; esac; done < lines.txt`,
		`while read -r l; do [[ a == "$l" ]] && echo y; done < lines.txt`,
	} {
		res := runIn(t, ws, cmd+"; touch after.txt")
		assert.Equal(t, "deny", string(res.Decision.Decision), "%s ran: %.200v", cmd, res)
		assert.Equal(t, "expansion", res.Decision.Code, "%s: %s", cmd, res.Decision.Reason)
		assert.Regexp(t, `quote it|\[ "\$a" = "\$b" \]`, res.Decision.Hint, cmd)
		assert.NoFileExists(t, filepath.Join(ws, "after.txt"), cmd)
	}
	res := runIn(t, ws, `while read -r l; do [ a = "$l" ] || echo n; case $l in x) echo y;; esac; done < lines.txt`)
	require.Nil(t, res.Stopped, "%.300v", res)
	assert.Equal(t, "n\nn\n", res.Stdout)
}
