package security

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/execpolicy"
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
		{"echo ${PWD:-/etc}", allow},
		{"echo ${PWD#/}", allow},
		{"echo ${#PWD}", allow},
		{"echo ${!PWD}", allow},
		{"echo ${PWD/ws/ws2}", allow},
		{"echo $OLDPWD", allow},
		{"echo $HOME", allow},
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
		// $(pwd) and `pwd` alone are $PWD: the pwd builtin prints it.
		{`echo "dir: $(pwd)"`, allow},
		{"cd $(pwd)/src && ls", allow},
		{"echo `pwd`", allow},
		{"cat $(pwd)/../ws2/secret.txt", deny("outside_workspace")},
		{"cat <<EOF > where.txt\n$(pwd)\nEOF", allow},
		{"echo $(pwd -P)", allow},
		{"echo $(pwd; id)", ask},
		{"echo $(pwd > x)", allow},
		{"echo $(PWD=/etc pwd)", deny("assignment")},
		{"echo $(command pwd)", deny("shell_builtin")},
	})
}

// $(pwd) runs nothing: it is the cwd, as bash prints it.
func TestPwdSubstitutionIsTheCwd(t *testing.T) {
	ws := fixture(t)
	res := runIn(t, ws, `cd src && echo "$(pwd)" && echo `+"`pwd`")
	assert.Equal(t, ws+"/src\n"+ws+"/src\n", res.Stdout, res.Stderr)
}

// In a cwd with a space or a glob character, bash would split or glob
// an unquoted $PWD: vtexec refuses rather than guess.
func TestPWDRefusedWhereBashWouldSplit(t *testing.T) {
	ws := fixture(t)
	odd := filepath.Join(ws, "a b*")
	require.NoError(t, os.Mkdir(odd, 0o755))
	// The static check cannot split it as bash would: the interpreter
	// runs it, splitting as bash does, and checks the words it makes.
	d, err := standinEngine(t).Check(context.Background(), vtexec.Request{Command: "ls $PWD", Workspace: ws, Cwd: odd})
	require.NoError(t, err)
	assert.Equal(t, "ask", string(d.Decision))
	assert.Equal(t, "run_time_check", d.Code)
	d, err = standinEngine(t).Check(context.Background(), vtexec.Request{Command: "ls .", Workspace: ws, Cwd: odd})
	require.NoError(t, err)
	assert.Equal(t, "allow", string(d.Decision), "only $PWD is refused there")
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
		{"[[ -e ~/.aws ]]", allow}, // a tilde: [[ ]] and a word differ
		// What [[ ]] and test do not share.
		{"[[ abc == a* ]]", allow},
		{"[[ -f a && -f b ]]", allow},
		{"[[ x =~ y ]]", allow},
		{"[[ a < b ]]", allow},
		{"[[ ! -f a ]]", allow},
		{"[[ ( -f a ) ]]", allow},
		{"[[ -f {a,b} ]]", allow},
		{"[[ -v HOME ]]", allow},
		{"[[ -f $(id) ]]", ask},
		{"[[ -f $HOME ]]", allow},
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

// Here-documents and here-strings: a quoted delimiter's body is fed as it
// is; an unquoted one's may hold only text and $PWD, never an escape or
// another expansion; the body is the program's stdin, so a program that
// runs its stdin as code is asked about as with a pipe, and a write
// target is confined like any redirect.
func TestHereDocuments(t *testing.T) {
	checkTable(t, []tableCase{
		{"cat > notes.md <<'EOF'\nhello $HOME `id` $(id)\n\\n\nEOF", allow},
		{"cat > notes.md <<\"EOF\"\ntext\nEOF", allow},
		{"cat > notes.md <<\\EOF\ntext $x\nEOF", allow},
		{"cat <<EOF\nplain text\nEOF", allow},
		{"cat <<EOF\nin $PWD\nEOF", allow},
		{"cat <<-EOF\n\tindented\n\tEOF", allow},
		{"cat <<< 'one line'", allow},
		{"cat <<'EOF' | wc -l\na\nb\nEOF", allow},
		{"grep -c x <<'EOF' > count.txt\nx\nEOF", allow},
		// What bash would expand or interpret.
		{"cat <<EOF\n$HOME\nEOF", runTime},
		{"cat <<EOF\n$(id)\nEOF", ask},
		{"cat <<EOF\n`id`\nEOF", ask},
		{"cat <<EOF\n$((1+1))\nEOF", runTime},
		{"cat <<EOF\nback\\slash\nEOF", deny("redirect")},
		{"cat <<< $HOME", runTime},
		{"cat <<< $(id)", ask},
		{"cat <<< *", deny("redirect")},
		// Where the text goes.
		{"cat > ../ws2/x <<'EOF'\nx\nEOF", deny("outside_workspace")},
		{"cat > .git/hooks/pre-commit <<'EOF'\n#!/bin/sh\nEOF", deny("protected_path")},
		{"cat 3<<'EOF'\nx\nEOF", deny("redirect")},
		{"python3 <<'EOF'\nprint(1)\nEOF", want{"ask", "inline_code"}},
		{"xargs cat <<'EOF'\nfile.txt\nEOF", want{"ask", "unseen_arguments"}},
		{"sh <<'EOF'\nid\nEOF", deny("forbidden_program")},
	})
}

// The body reaches the program exactly, and an approval is bound to it:
// an id handed out for one text does not approve another.
func TestHereDocumentRunsAndApprovalIsBoundToIt(t *testing.T) {
	ws := fixture(t)
	res := runIn(t, ws, "cat > notes.md <<'EOF'\nhello $HOME `id`\n\\back\nEOF\ncat notes.md; tr a-z A-Z <<< 'here string'")
	assert.Equal(t, 0, res.ExitCode, res.Stderr)
	assert.Equal(t, "hello $HOME `id`\n\\back\nHERE STRING\n", res.Stdout)
	res = runIn(t, ws, "cat <<-EOF\n\tin $PWD\n\tEOF")
	assert.Equal(t, "in "+ws+"\n", res.Stdout)

	ctx := context.Background()
	e := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { e.Close() })
	ask := "xargs cat <<'EOF'\nfile.txt\nEOF"
	d, err := e.Check(ctx, vtexec.Request{Command: ask, Session: "h1", Workspace: ws, AuditLog: "off", WantApprovalID: true})
	require.NoError(t, err)
	require.Equal(t, "ask", string(d.Decision), d.Reason)
	other := "xargs cat <<'EOF'\nREADME.m\nEOF" // as long, another file
	res, err = e.Run(ctx, vtexec.Request{Command: other, Session: "h1", Workspace: ws, AuditLog: "off",
		Approver: vtexec.IDApprover{ID: d.ApprovalID, Answer: vtexec.AnswerOnce, Session: "h1"}})
	require.NoError(t, err)
	assert.Equal(t, "deny", string(res.Decision.Decision), "the id was for another text")
	res, err = e.Run(ctx, vtexec.Request{Command: ask, Session: "h1", Workspace: ws, AuditLog: "off",
		Approver: vtexec.IDApprover{ID: d.ApprovalID, Answer: vtexec.AnswerOnce, Session: "h1"}})
	require.NoError(t, err)
	assert.Equal(t, "allow", string(res.Decision.Decision), "the id approves its own text: %s", res.Decision.Reason)
}

// go and npm: the uses that only read and print are allowed; every other
// use stays a developer tool a person approves, with its rules; paths
// stay inside.
func TestDevToolReadForms(t *testing.T) {
	eng := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, "go", "npm")})
	t.Cleanup(func() { eng.Close() })
	checkTableWith(t, eng, []tableCase{
		{"go version", allow},
		{"go env", allow},
		{"go env GOPATH GOMODCACHE", allow},
		{"go env -json", allow},
		{"go list ./...", allow},
		{"go list -m all", allow},
		{"go list -f '{{.ImportPath}}' -deps ./src/...", allow},
		{"go doc fmt.Println", allow},
		{"go doc -all ./src", allow},
		{"npm ls", allow},
		{"npm ls -g --depth 0", allow},
		{"npm list --json", allow},
		{"npm --version", allow},
		{"npm pkg get version", allow},
		{"npm pkg get scripts.test name", allow},
		{"npm run", allow}, // lists the scripts
		{"npm pkg get --workspace x", ask},
		{"npm pkg set scripts.x=y", ask},
		{"diff -u /dev/null README.md", allow}, // /dev/null reads as empty
		{"git diff --no-index /dev/null README.md", allow},
		{"go help", allow},
		{"go help build", allow},
		// Writes, builds and runs: a person decides, as before.
		{"go env -w GOFLAGS=-toolexec=x", deny("forbidden_flag")},
		{"go env -u GOPROXY", deny("forbidden_flag")},
		{"go env lower", ask},
		{"go build ./...", allow}, // compiles; runs none of the project's code
		{"go generate ./...", ask},
		{"go test ./...", ask},
		{"go run .", ask},
		{"go list -export ./...", ask},
		{"go list -compiled ./...", ask},
		{"go doc -http :6060", ask},
		{"go version -m go.bin", ask},
		{"go test -exec ./x ./...", deny("forbidden_flag")},
		{"go list -toolexec ./x ./...", deny("forbidden_flag")},
		{"npm install", ask},
		{"npm run build", ask},
		{"npm ls --script-shell ./x", deny("forbidden_flag")},
		{"npm exec --yes cowsay", deny("forbidden_flag")},
		// Paths stay inside.
		{"go list /etc/...", deny("outside_workspace")},
		{"go list ../ws2/...", deny("outside_workspace")},
		{"go doc ../ws2", deny("outside_workspace")},
		{"go version -m /usr/bin/go", deny("outside_workspace")},
	})
}

// for NAME in WORDS loops are unrolled into the list they stand for, each
// iteration checked; the variable expands as bash would (split when
// unquoted). Anything else loop-like stays refused.
func TestForLoops(t *testing.T) {
	checkTable(t, []tableCase{
		{"for f in src/*.txt; do cat $f; done", allow},
		{`for f in README.md file.txt; do echo "== $f"; head -n 1 "$f"; done`, allow},
		{"for d in src docs; do ls $d; done", allow},
		{"for x in a b; do echo $x > out-$x.txt; done", allow},
		{"for x in {1..3}; do echo $x; done; echo done", allow},
		// Each iteration is checked.
		{"for f in README.md ../ws2/secret.txt; do cat $f; done", deny("outside_workspace")},
		{"for f in README.md /etc/passwd; do cat $f; done", deny("outside_workspace")},
		{"for f in src/*; do cat $f; done > out.txt", allow}, // see TestGroupRedirects
		{"for p in rm; do $p -rf src; done", want{"ask", "destructive"}},
		{"for x in a; do curl $x; done", deny("forbidden_program")},
		{"for x in 'a b'; do cat $x; done", allow}, // split: cat a b, two files inside
		{"for x in '../ws2/secret.txt x'; do cat $x; done", deny("outside_workspace")},
		{"for x in a; do echo x > $x; done", allow},
		{"for x in ../ws2/p; do echo x > $x; done", deny("outside_workspace")},
		// A loop in an && / || list, or after a cd: its words expand
		// where the cd leaves it, its body is checked there.
		{"ls && for x in a; do echo $x; done", allow},
		{"for x in a b; do echo $x; done && echo ok || echo failed", allow},
		{"cd src; for x in a; do echo $x; done", allow},
		{"cd src && for f in *.txt; do cat $f; done", allow},
		{"cd src && for f in *.txt; do grep -n x \"$f\" | head -5; done", allow},
		{"cd src && for f in a.txt; do cat ../../ws2/secret.txt; done", deny("outside_workspace")},
		{"cd src && for f in ../../ws2/*; do cat $f; done", deny("outside_workspace")},
		{"cd .. && for f in *; do cat $f; done", deny("outside_workspace")},
		{"cd src && for f in a.txt; do rm $f; done", want{"ask", "destructive"}},
		// Forms that stay refused.
		{"for x in a; do cd src; done; for y in b; do echo $y; done", runTime},
		{"ls && for x in a; do echo $x; done > out.txt", allow},
		{"ls | for x in a; do echo $x; done", allow},
		{"{ for x in a; do echo $x; done; }", allow},
		{"for x in a; do echo $x; done | sort", allow},
		{"for ((i=0; i<3; i++)); do echo $i; done", runTime},
		{"for x; do echo $x; done", allow},
		{"for x in a; do for y in b; do echo $y; done; done", allow},
		{"for x in a; do while true; do ls; done; done", runTime},
		{"for x in $(ls); do echo $x; done", allow},
		{"for x in $HOME; do echo $x; done", allow},
		{"for x in a; do echo $y; done", allow},
		{"for x in a; do echo ${x%a}; done", allow},
		{"for x in a; do echo $x; done; echo $x", allow},
		{"for x in {1..100}; do echo $x; done", deny("too_long")},
		{"for x in a; do break; done", allow},
	})
}

// An unrolled loop runs as the list it stands for: a cd inside holds for
// the next iteration, as in bash.
func TestForLoopRuns(t *testing.T) {
	ws := fixture(t)
	res := runIn(t, ws, `for f in src/a.txt file.txt; do printf '[%s]' "$f"; done; for x in 'a b' c; do printf '(%s)' $x; done`)
	assert.Equal(t, 0, res.ExitCode, res.Stderr)
	assert.Equal(t, "[src/a.txt][file.txt](a)(b)(c)", res.Stdout)
}

// A loop in a list runs as bash runs it: not at all when the && before
// it fails, its words expanded where a cd before it leaves it, and its
// status (the last iteration's) decides what follows.
func TestForLoopInAListRuns(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct{ cmd, stdout string }{
		{`false && for x in a b; do printf '(%s)' $x; done; printf end`, "end"},
		{`true && for x in a b; do printf '(%s)' $x; done; printf end`, "(a)(b)end"},
		{`cd src && for f in *.txt; do printf '[%s]' "$f"; done`, "[a.txt]"},
		{`for x in a b; do printf '(%s)' $x; false; done || printf failed`, "(a)(b)failed"},
		{`for x in a b; do false; printf '(%s)' $x; done && printf ok`, "(a)(b)ok"},
		// A directory made by the command: its glob matches nothing and
		// stays as typed, as in bash.
		{`mkdir -p newdir && cd newdir && for f in *.go; do printf '[%s]' "$f"; done`, "[*.go]"},
	} {
		res := runIn(t, ws, tc.cmd)
		assert.Equal(t, tc.stdout, res.Stdout, "%s\n%s", tc.cmd, res.Stderr)
	}
}

// command -v, command -V and type answer from the trusted PATH, carried
// out by vtexec; a name with a slash is never looked at, so they are no
// oracle for files outside.
func TestProgramLookup(t *testing.T) {
	checkTable(t, []tableCase{
		{"command -v git", allow},
		{"command -v git ls", allow},
		{"command -V ls", allow},
		{"type git", allow},
		{"command -v git > where.txt", allow},
		{"command -v git > ../ws2/x", deny("outside_workspace")},
		{"type -a ls", deny("shell_builtin")},
		{"command -v", deny("bad_usage")},
	})
	ws := fixture(t)
	res := runIn(t, ws, "command -v ls cd nosuchprogram-9; type ls")
	assert.Equal(t, "/usr/bin/ls\ncd\nls is /usr/bin/ls\n", res.Stdout)
	res = runIn(t, ws, "command -v /etc/passwd ../ws2/secret.txt")
	assert.Equal(t, 1, res.ExitCode)
	assert.Empty(t, res.Stdout)
}

// An allowlisted program's --help and --version print text: allowed,
// whatever operands the program otherwise needs.
func TestHelpAndVersionOfAllowlistedPrograms(t *testing.T) {
	checkTable(t, []tableCase{
		{"chmod --help", allow}, {"chmod --version", allow},
		{"sleep --help", allow}, {"sleep --version", allow},
		{"cp --help", allow}, {"timeout --version", allow}, {"xargs --help", allow},
		{"awk --version", allow}, {"gofmt -h", allow}, {"git -h", allow}, {"git status -h", allow},
		{"git status --help", deny("forbidden_flag")}, // opens a viewer the configuration chooses
		{"chmod +x", deny("bad_usage")},
		{"sleep", deny("bad_usage")},
	})
}

// Class 6 at check time: rg gets --no-ignore-parent when a directory above
// the workspace holds an ignore file, and not otherwise.
func TestRgStopsAtTheWorkspaceRoot(t *testing.T) {
	ws := fixture(t)
	check := func(cmd string) []string {
		d, err := standinEngine(t).Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
		require.NoError(t, err)
		require.Equal(t, "allow", string(d.Decision), d.Reason)
		return d.Commands[0].Argv
	}
	assert.Equal(t, []string{"rg", "-n", "TODO", "src"}, check("rg -n TODO src"))
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(ws), ".rgignore"), []byte("*.txt\n"), 0o644))
	assert.Equal(t, []string{"rg", "-n", "TODO", "src", "--no-ignore-parent"}, check("rg -n TODO src"))
	assert.Equal(t, []string{"rg", "--ignore-parent", "x", "--no-ignore-parent", "--", "src"}, check("rg --ignore-parent x -- src"))
}

// A ( ) group standing as a statement or as one part of an && / || list
// runs its commands as a group; a cd inside holds only there, for the
// check as for the run. Anything else ( )-like stays refused.
func TestSubshellGroups(t *testing.T) {
	checkTable(t, []tableCase{
		{"(cd src && ls)", allow},
		{"(cd src && ls -la) && cat README.md", allow},
		{"(cd src && cat ../../ws2/secret.txt)", deny("outside_workspace")},
		// After the group the directory is the one before it: from the
		// root ../ws2 is outside (from src it would be inside).
		{"(cd src && ls) && cat ../ws2/secret.txt", deny("outside_workspace")},
		{"(cd src) && for f in *.txt; do cat $f; done", allow},
		{"(cd src; rm a.txt)", want{"ask", "destructive"}},
		{"(cd src; exit 1)", runTime},
		{"(for f in *; do cat $f; done)", deny("outside_workspace")}, // unrolled: dangle leads out
		{"(cd src && for f in *.txt; do cat $f; done)", allow},
		{"(ls) &", deny("background")},
		{"! (ls)", allow},
	})
}

func TestSubshellGroupRuns(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct{ cmd, stdout string }{
		{`(cd src && pwd) && pwd`, ws + "/src\n" + ws + "\n"},
		{`false && (echo a; echo b); echo c`, "c\n"},
		{`(echo a; false) || echo failed`, "a\nfailed\n"},
		{`(cd src; cd deep; pwd); pwd`, ws + "/src/deep\n" + ws + "\n"},
	} {
		res := runIn(t, ws, tc.cmd)
		assert.Equal(t, tc.stdout, res.Stdout, "%s\n%s", tc.cmd, res.Stderr)
		assert.Equal(t, ws, res.Cwd, "%s: the group's cd holds only inside it", tc.cmd)
	}
}

// A { } group standing as a statement or as one part of an && / || list
// runs its commands as a group; a cd inside holds after it, for the
// check as for the run. Anything else { }-like stays refused.
func TestBraceGroups(t *testing.T) {
	checkTable(t, []tableCase{
		{"{ cd src && ls; }", allow},
		{"test -f README.md || { echo missing; false; }", allow},
		{"{ cd src; cat ../../ws2/secret.txt; }", deny("outside_workspace")},
		// After the group the directory is the one inside it: from src
		// ../ws2 is inside (from the root it would be outside).
		{"{ cd src; } && cat ../ws2/secret.txt", allow},
		{"{ cd src; } && cat ../../ws2/secret.txt", deny("outside_workspace")},
		{"{ rm file.txt; }", want{"ask", "destructive"}},
		// Forms that stay refused.
		{"{ cd src; } && for f in *.txt; do cat $f; done", allow}, // the words expand in src
		{"{ cd src; } && for f in ../../ws2/*; do cat $f; done", deny("outside_workspace")},
		{"{ echo a; echo b; } < file.txt", deny("redirect")},
		{"{ ls; } | wc -l", allow},
		{"ls | { wc -l; }", allow},
		{"{ { ls; }; }", allow}, // see TestNestedCompounds
		{"{ (ls); }", allow},
		{"({ ls; })", allow},
		{"{ ls; } &", deny("background")},
		{"! { ls; }", allow},
		{"if true; then { ls; }; fi", allow},
		{"{ if true; then ls; fi; }", allow},
	})
}

func TestBraceGroupRuns(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct{ cmd, stdout, cwd string }{
		{`{ cd src && pwd; } && pwd`, ws + "/src\n" + ws + "/src\n", ws + "/src"},
		{`false && { echo a; echo b; }; echo c`, "c\n", ws},
		{`false && { echo a; echo b; } || echo c`, "c\n", ws},
		{`{ echo a; false; } || echo failed`, "a\nfailed\n", ws},
	} {
		res := runIn(t, ws, tc.cmd)
		assert.Equal(t, tc.stdout, res.Stdout, "%s\n%s", tc.cmd, res.Stderr)
		assert.Equal(t, tc.cwd, res.Cwd, tc.cmd)
	}
}

// A group's own output redirects ({ …; } > f, ( … ) 2>&1, a loop's
// > f) are checked as any redirect, at the directory the group starts
// in, and stand for the group's output while it runs: the file is
// opened once, so > keeps every command's output. Input redirects on a
// group stay refused (they would feed an unseen command).
func TestGroupRedirects(t *testing.T) {
	checkTable(t, []tableCase{
		{"{ echo a; echo b; } > out.txt", allow},
		{"(cd src && ls) > out.txt 2>&1", allow},
		{"{ ls; } 2>/dev/null", allow},
		{"cd src && { ls; } > ../out.txt", allow},
		{"{ cd src; ls; } > out.txt", allow},
		{"{ echo a; } > ../ws2/out.txt", deny("outside_workspace")},
		{"cd src && { ls; } > ../../ws2/out.txt", deny("outside_workspace")},
		{"for f in a b; do echo $f; done > /tmp/x", deny("outside_workspace")},
		{"{ echo a; } > .git/config", deny("protected_path")},
		{"{ echo a; } > .vtexec/policy.toml", deny("protected_path")},
		{"{ ls; } > $HOME/x", runTime},
		{"{ ls; } > $(echo out.txt)", runTime},
		{"{ rm file.txt; } > out.txt", want{"ask", "destructive"}},
		{"{ python3; } < script.py", deny("redirect")},
		{"{ cat; } <<'EOF'\nprint(1)\nEOF", deny("redirect")},
		{"(sh) <<< 'id'", deny("redirect")},
		{"{ ls; } 3> out.txt", deny("redirect")},
		{"{ ls; } > out.txt | cat", allow},
	})
}

func TestGroupRedirectRuns(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct{ cmd, file, content, stdout string }{
		{`{ echo a; echo b; } > g.txt`, "g.txt", "a\nb\n", ""},
		{`echo old > g.txt; { echo new; } >> g.txt`, "g.txt", "old\nnew\n", ""},
		{`(cd src && pwd && echo err >&2) > g.txt 2>&1; pwd`, "g.txt", ws + "/src\nerr\n", ws + "\n"},
		{`for f in x y; do echo $f; done > g.txt`, "g.txt", "x\ny\n", ""},
		{`{ echo hi | tr a-z A-Z; echo lo; } > g.txt`, "g.txt", "HI\nlo\n", ""},
		{`{ echo out; echo err >&2; } 2> g.txt`, "g.txt", "err\n", "out\n"},
		{`{ echo a; echo b > own.txt; } > g.txt`, "g.txt", "a\n", ""},
		{`cd src && { echo in-src; } > ../g.txt`, "g.txt", "in-src\n", ""},
	} {
		os.Remove(filepath.Join(ws, "g.txt"))
		res := runIn(t, ws, tc.cmd)
		require.Nil(t, res.Stopped, tc.cmd)
		assert.Equal(t, tc.stdout, res.Stdout, "%s\n%s", tc.cmd, res.Stderr)
		got, err := os.ReadFile(filepath.Join(ws, tc.file))
		require.NoError(t, err, tc.cmd)
		assert.Equal(t, tc.content, string(got), tc.cmd)
	}
	// A group not entered opens nothing; one whose file cannot be
	// opened does not run, fails, and says why.
	res := runIn(t, ws, `false && { echo a; } > skipped.txt`)
	assert.NoFileExists(t, filepath.Join(ws, "skipped.txt"))
	res = runIn(t, ws, `{ echo ran > ran.txt; } > missing-dir/x.txt || echo failed`)
	assert.NoFileExists(t, filepath.Join(ws, "ran.txt"))
	assert.Equal(t, "failed\n", res.Stdout)
	assert.Contains(t, res.Stderr, "missing-dir/x.txt")
}

// ! before a pipeline inverts its status, as in bash; the commands are
// checked as without it. Before a group, a loop or an if, or inside a
// pipeline, it stays refused.
func TestNegation(t *testing.T) {
	checkTable(t, []tableCase{
		{"! grep -q TODO README.md", allow},
		{"! grep -q x README.md | cat && echo ok", allow},
		{"if ! test -f go.mod; then echo no module; fi", allow},
		{"for f in src/*.txt; do ! grep -q x $f && echo $f; done", allow},
		{"! cat ../ws2/secret.txt", deny("outside_workspace")},
		{"! rm file.txt", want{"ask", "destructive"}},
		{"! { ls; }", allow},
		{"! (ls)", allow},
		{"! for f in a; do echo $f; done", allow},
		{"! if true; then ls; fi", allow},
		{"! ls &", deny("background")},
		{"! $(ls)", deny("substitution")},
	})
}

func TestNegationRuns(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct {
		cmd, stdout string
		code        int
	}{
		{`! false && echo yes`, "yes\n", 0},
		{`! true || echo no`, "no\n", 0},
		{`! true`, "", 1},
		{`! false`, "", 0},
		{`! grep -q TODO src/a.txt; echo $PWD`, ws + "\n", 0},
		{`if ! grep -q absent src/a.txt; then echo missing; else echo found; fi`, "missing\n", 0},
		{`! echo a | grep -q b && echo no b`, "no b\n", 0},
		{`! exit 3`, "", 3},
	} {
		res := runIn(t, ws, tc.cmd)
		assert.Equal(t, tc.stdout, res.Stdout, "%s\n%s", tc.cmd, res.Stderr)
		assert.Equal(t, tc.code, res.ExitCode, tc.cmd)
	}
}

// Groups and ifs nest in one another and in a loop's body, each a
// statement or one part of an && / || list, and run as bash runs them.
// Loops stay one level deep and at the top; an if with a cd inside, and
// anything compound in a pipeline, stay refused.
func TestNestedCompounds(t *testing.T) {
	checkTable(t, []tableCase{
		{"for f in src/*.txt; do if grep -q TODO $f; then echo $f; fi; done", allow},
		{"if test -f go.mod; then echo go; elif test -f package.json; then echo node; else echo other; fi", allow},
		{"test -d src && if test -f src/a.txt; then cat src/a.txt; fi", allow},
		{"(cd src && { ls; if test -f a.txt; then cat a.txt; fi; })", allow},
		{"{ if true; then echo a; fi; } > out.txt", allow},
		// Every branch, nested or not, is checked.
		{"if false; then echo; elif false; then cat ../ws2/secret.txt; fi", deny("outside_workspace")},
		{"for f in a b; do if true; then (cat ../ws2/secret.txt); fi; done", deny("outside_workspace")},
		{"( (cd src; cat ../../ws2/secret.txt) )", deny("outside_workspace")},
		{"if true; then { rm file.txt; }; fi", want{"ask", "destructive"}},
		// Forms that stay refused.
		{"if test -d src; then for f in src/*.txt; do cat $f; done; fi", allow},
		{"(cd src && for f in *.txt; do cat ../../ws2/secret.txt; done)", deny("outside_workspace")},
		{"(cd src; for f in ../../ws2/*; do echo $f; done)", deny("outside_workspace")},
		// Forms that stay refused: a loop in a loop, a loop after a cd
		// inside a loop.
		{"for x in a; do { for y in b; do echo $y; done; }; done", allow},
		{"{ for d in src; do cd $d; done; for f in *; do echo $f; done; }", runTime},
		{"if true; then echo a; elif true; then cd src; fi", runTime},
		{"{ if true; then cd src; fi; }", runTime},
		{"ls | { if true; then cat; fi; }", allow},
		{"( (exit 1) )", allow},
		{"! if true; then ls; fi", allow},
	})
}

func TestNestedCompoundRuns(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct {
		cmd, stdout string
		code        int
		cwd         string
	}{
		{`if false; then echo 1; elif true; then echo 2; else echo 3; fi`, "2\n", 0, ws},
		{`if false; then echo 1; elif false; then echo 2; else echo 3; fi`, "3\n", 0, ws},
		{`if true; then echo 1; elif true; then echo 2; else echo 3; fi`, "1\n", 0, ws},
		{`if false; then echo 1; elif false; then echo 2; fi`, "", 0, ws},
		{`for w in a b c; do if test $w = b; then echo is-b; else echo not-$w; fi; done`, "not-a\nis-b\nnot-c\n", 0, ws},
		{`false && if true; then echo then; else echo else; fi`, "", 1, ws},
		{`false || if true; then echo then; fi`, "then\n", 0, ws},
		{`if true; then if false; then echo a; else echo b; fi; fi; echo c`, "b\nc\n", 0, ws},
		{`(cd src && { pwd; (cd deep && pwd); pwd; }); pwd`, ws + "/src\n" + ws + "/src/deep\n" + ws + "/src\n" + ws + "\n", 0, ws},
		{`{ cd src; ( cd deep; pwd ); pwd; }`, ws + "/src/deep\n" + ws + "/src\n", 0, ws + "/src"},
		{`{ { echo a; } > inner.txt; echo b; } > outer.txt; cat inner.txt outer.txt`, "a\nb\n", 0, ws},
		{`if true; then echo yes; fi > if.txt && cat if.txt`, "yes\n", 0, ws},
		{`(cd src && for f in *.txt; do echo "$f"; done); pwd`, "a.txt\n" + ws + "\n", 0, ws},
		{`if test -d src; then for f in src/*.txt; do echo $f; done; else echo none; fi`, "src/a.txt\n", 0, ws},
	} {
		res := runIn(t, ws, tc.cmd)
		require.Nil(t, res.Stopped, tc.cmd)
		assert.Equal(t, tc.stdout, res.Stdout, "%s\n%s", tc.cmd, res.Stderr)
		assert.Equal(t, tc.code, res.ExitCode, tc.cmd)
		assert.Equal(t, tc.cwd, res.Cwd, tc.cmd)
	}
}

// `if COND; then …; [else …;] fi` standing as a whole statement: COND
// and both branches are checked, and they run as bash runs them.
func TestIfStatements(t *testing.T) {
	checkTable(t, []tableCase{
		{"if [ -f go.mod ]; then cat go.mod; else echo no go.mod; fi", allow},
		{"if grep -q TODO src/a.txt; then echo found; fi", allow},
		{"if [[ -d src ]]; then ls src; fi; echo done", allow},
		{"if test -f README.md && grep -q demo README.md; then head -n 1 README.md; fi", allow},
		// Every branch is checked, taken or not.
		{"if false; then cat ../ws2/secret.txt; fi", deny("outside_workspace")},
		{"if true; then ls; else cat /etc/passwd; fi", deny("outside_workspace")},
		{"if cat ../ws2/secret.txt; then ls; fi", deny("outside_workspace")},
		{"if true; then rm file.txt; fi", want{"ask", "destructive"}},
		// Forms that stay refused.
		{"if true; then ls; elif false; then ls; fi", allow},
		{"if true; then cd src; fi; ls", runTime},
		{"if true; then ls; fi > out.txt", allow},
		{"if true; then if true; then ls; fi; fi", allow},
		{"if true; then for f in a; do echo $f; done; fi", allow}, // see TestNestedCompounds
		{"ls | if true; then cat; fi", allow},
		{"if true; then ls; fi && echo ok", allow},
		{"if $(true); then ls; fi", deny("substitution")},
	})
}

func TestIfStatementRuns(t *testing.T) {
	ws := fixture(t)
	for _, tc := range []struct {
		cmd, stdout string
		code        int
	}{
		{`if [ -f README.md ]; then echo yes; else echo no; fi`, "yes\n", 0},
		{`if [ -f missing ]; then echo yes; else echo no; fi`, "no\n", 0},
		{`if [ -f missing ]; then echo yes; fi`, "", 0},
		{`if true; then false; else echo else; fi`, "", 1},
		{`if false; then echo a; fi; echo b`, "b\n", 0},
		{`if grep -q TODO src/a.txt; then echo found; fi; echo after`, "found\nafter\n", 0},
	} {
		res := runIn(t, ws, tc.cmd)
		assert.Equal(t, tc.stdout, res.Stdout, "%s\n%s", tc.cmd, res.Stderr)
		assert.Equal(t, tc.code, res.ExitCode, tc.cmd)
	}
}

// A step checked in the directory a cd before it leads to never runs
// elsewhere: when that cd did not run (after a failing &&) or failed,
// the run stops before the step with cwd_not_reached.
func TestStepNeverRunsOutsideTheDirectoryItWasCheckedIn(t *testing.T) {
	ws := fixture(t)
	for _, cmd := range []string{
		`false && cd src; cat a.txt`,
		`false && for d in src; do cd $d; done; cat a.txt`,
		`false && { cd src; echo skipped; }; cat a.txt`,
		`cd missing-dir; cat a.txt`,
	} {
		res := runIn(t, ws, cmd)
		require.NotNil(t, res.Stopped, "%s: %s", cmd, res.Stdout)
		assert.Equal(t, "cwd_not_reached", res.Stopped.Code, cmd)
		assert.Empty(t, res.Stdout, "%s: cat ran", cmd)
		assert.Equal(t, ws, res.Cwd)
	}
	res := runIn(t, ws, `true && cd src; cat a.txt`)
	assert.Nil(t, res.Stopped)
	assert.Equal(t, "TODO: a\n", res.Stdout)
}

// find -exec and -execdir run their command as a wrapper's: checked as
// if it stood alone. It runs without a person only when it only reads
// and every match is a regular file (-type f before it, with nothing but
// "and" between): a match cannot then be a link leading out.
func TestFindExec(t *testing.T) {
	checkTable(t, []tableCase{
		{"find . -type f -name '*.txt' -exec grep -n TODO {} +", allow},
		{"find src -type f -exec wc -l {} \\;", allow},
		{"find . -name '*.txt' -exec cat {} +", want{"ask", "unseen_arguments"}},
		{"find . -type f -exec rm {} +", want{"ask", "unseen_arguments"}},
		{"find . -type f -exec cat {} ../ws2/secret.txt \\;", deny("outside_workspace")},
		{"find . -type f -exec sh -c 'cat {}' \\;", deny("forbidden_program")},
		{"find . -type f -exec cat {} \\; -exec cat {} \\;", deny("bad_usage")},
		{"find . -type f -ok cat {} \\;", deny("forbidden_flag")},
		// In each match's directory, ../x is not the ../x checked.
		{"cd src && find .. -maxdepth 1 -type f -execdir cat ../x {} \\;", want{"ask", "unseen_arguments"}},
	})
}

// A link among the matches is never read: -type f leaves it out, and
// without -type f the command asks.
func TestFindExecReadsNoLink(t *testing.T) {
	ws := fixture(t)
	outside := filepath.Join(filepath.Dir(ws), "ws2", "secret.txt")
	require.FileExists(t, outside)
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "src", "leak.txt")))
	res := runIn(t, ws, "find . -type f -name '*.txt' -exec cat {} +")
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.Contains(t, res.Stdout, "TODO", "the regular files are read")
	secret, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.NotContains(t, res.Stdout, strings.TrimSpace(string(secret)))
	res = runIn(t, ws, "find . -name '*.txt' -exec cat {} +")
	assert.Equal(t, "deny", string(res.Decision.Decision), "asks, and no person can be asked here")
	assert.Equal(t, "needs_approval", res.Decision.Code)
}

// A loop over as many words as a loop may have, whose body is an if,
// fits in one request.
func TestLoopOfIfsFits(t *testing.T) {
	ws := fixture(t)
	words := strings.TrimSpace(strings.Repeat("src/a.txt ", execpolicy.MaxLoopItems))
	res := runIn(t, ws, "for f in "+words+"; do if grep -q TODO $f; then echo $f; fi; done > found.txt; wc -l < found.txt")
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.Equal(t, fmt.Sprintf("%d\n", execpolicy.MaxLoopItems), res.Stdout)
}

// "$(cat <<'EOF' … EOF)" in double quotes is the here-document's text,
// as bash substitutes it: nothing runs, and nothing in the text expands.
// Anything else of the kind stays a refused substitution.
func TestHereDocSubstitution(t *testing.T) {
	const msg = "fix: handle nil\n\nBody with $HOME, `id`, \\n, \"quotes\", *.go and $(id)\n\n"
	doc := func(open, delim, text string) string { return open + "\n" + text + delim + "\n)" }
	checkTable(t, []tableCase{
		{`git commit -m "` + doc("$(cat <<'EOF'", "EOF", msg) + `"`, want{"ask", "git_writes"}},
		{`echo "` + doc("$(cat <<'EOF'", "EOF", msg) + `" > msg.txt`, allow},
		{`echo "` + doc("$(cat <<EOF", "EOF", "plain text\n") + `"`, allow},
		{`for f in a b; do echo "$f: ` + doc("$(cat <<'EOF'", "EOF", "x\n") + `"; done`, allow},
		// Not the static form: then the interpreter runs it, and each
		// command in it is checked as it is reached: a static one now.
		{`echo ` + doc("$(cat <<'EOF'", "EOF", "x\n"), allow},
		{`echo "` + doc("$(cat -n <<'EOF'", "EOF", "x\n") + `"`, allow},
		{`echo "` + doc("$(cat <<EOF", "EOF", "$HOME\n") + `"`, runTime},
		{`echo "` + doc("$(cat <<'EOF' | sh", "EOF", "id\n") + `"`, deny("forbidden_program")},
		{`echo "` + doc("$(sh <<'EOF'", "EOF", "id\n") + `"`, deny("forbidden_program")},
		{`echo "` + doc("$(cat <<'EOF' /etc/passwd", "EOF", "x\n") + `"`, deny("outside_workspace")},
	})
	ws := fixture(t)
	for _, cmd := range []string{
		`echo "` + doc("$(cat <<'EOF'", "EOF", msg) + `"`,
		`printf '%s|' "a $(cat <<'EOF'` + "\n\tone\n  two\nEOF\n)" + ` b"`,
		`echo "[` + doc("$(cat <<-'EOF'", "\tEOF", "\tindented\n") + `]"`,
	} {
		res := runIn(t, ws, cmd)
		require.Equal(t, "allow", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		want := exec.Command("bash", "--norc", "-c", cmd)
		want.Dir = ws
		out, err := want.Output()
		require.NoError(t, err)
		assert.Equal(t, string(out), res.Stdout, cmd)
	}
}
