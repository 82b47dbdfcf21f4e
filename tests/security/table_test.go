package security

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

type want struct {
	decision string
	code     string
}

var (
	allow = want{"allow", ""}
	ask   = want{"ask", "not_allowed"}
	// runTime: words known only when it runs; the run checks each command.
	runTime = want{"ask", "run_time_check"}
)

func deny(code string) want { return want{"deny", code} }

// cases maps a command (with {{WS}} / {{WS2}} placeholders) to its verdict.
var cases = []tableCase{
	// Harmless commands agents type every day stay allowed.
	{"cat src/a.txt | wc -l", allow},
	{"rg -n TODO src", allow},
	{"find . -name '*.go'", allow},
	{"sed -n 1,5p README.md", allow},
	{"head -n 2 README.md && tail -n 1 file.txt", allow},
	{"ls", allow},
	{"ls -la", allow},
	{"ls -la src docs", allow},
	{"ls -1A --color=never", allow},
	{"ls docs/* src/*", allow},
	{"ls *", deny("outside_workspace")}, // the glob matches escape -> /etc
	{"ls src/*.txt", allow},
	{"cat src/*.txt", allow},
	{"cat 'src/a.txt'", allow},
	{`cat "src/a.txt"`, allow},
	{`cat src/\a.txt`, allow},
	{"cat $'src/a.txt'", allow},
	{"cat inner/a.txt", allow},
	{"cat src/deep/../a.txt", allow},
	{"cat ./src/./a.txt", allow},
	{"cat {{WS}}/src/a.txt", allow},
	{"cat src//a.txt", allow},
	{"cat up/ws/src/a.txt", allow},
	{"head -5 README.md", allow},
	{"head -n5 README.md", allow},
	{"head --lines=5 README.md", allow},
	{"tail -n +2 file.txt", allow},
	{"tail -f file.txt", allow},
	{"wc -lwc README.md file.txt", allow},
	{"echo hello world", allow},
	{"echo '$(id)'", allow},
	{`echo \$HOME`, allow},
	{`echo "a;b" 'c && d'`, allow},
	{"echo -n x", allow},
	{"pwd", allow},
	{"pwd -P", allow},
	{"which ls", allow},
	{"printenv", allow},
	{"printenv HOME", allow},
	{"grep -rn TODO src", allow},
	{"grep -e TODO -e FIXME -r .", allow},
	{"grep -c TODO src/a.txt", allow},
	{"rg --files", allow},
	{"rg -l TODO", allow},
	{"rg -g '*.go' -t go -i todo .", allow},
	{"rg --json -C 2 TODO src", allow},
	{"find src -type f -name '*.txt' -print", allow},
	{`find . \( -name '*.go' -o -name '*.md' \) -not -path './.git/*'`, allow},
	{"find . -maxdepth 2 -type d", allow},
	{"sed -n '/TODO/p' src/a.txt", allow},
	{"sed -E 's/(a)/\\1/g' file.txt", allow},
	{"sed -i 's/one/uno/' file.txt", allow},
	{"sed 's/x/y/w out.txt' file.txt", allow},
	{"cp src/a.txt src/copy.txt", allow},
	{"cp -r src backup", allow},
	{"cat README.md > out.txt", allow},
	{"cat README.md >> out.txt", allow},
	{"ls > out.txt 2>&1", allow},
	{"ls 2>&1 | wc -l", allow},
	{"ls >&2", allow},
	{"ls 2>/dev/null", allow},
	{"ls >/dev/null", allow},
	{"ls &>/dev/null", allow},
	{"cat </dev/null", allow},
	{"wc -l < src/a.txt", allow},
	{"cd src && ls", allow},
	{"cd src; cat a.txt", allow},
	{"cd src && cat ../README.md", allow},
	{"ls missing || echo none", allow},
	{"ls\nwc -l README.md", allow},
	{"ls # a comment", allow},
	{"/usr/bin/ls -l", allow},
	{"bash -c 'ls -la'", allow},
	{"bash -lc 'cat src/a.txt && ls'", allow},
	{"sh -c 'rg -n TODO src | head -n 3'", allow},
	{"cat newfile.txt", allow},

	// Command and process substitution, in every position.
	{"echo $(id)", ask},
	{"echo `id`", ask},
	{`echo "$(id)"`, ask},
	{`echo "prefix $(cat /etc/passwd) suffix"`, deny("outside_workspace")},
	{"cat <(ls)", runTime},
	{"cat > >(ls)", deny("substitution")},
	{"ls >(cat)", deny("substitution")},
	{"ls > $(echo out)", runTime},
	{"cat $(echo src/a.txt)", runTime},
	{"ls && echo $(whoami)", ask},
	{"bash -c 'echo $(id)'", deny("substitution")},

	// Parameter and arithmetic expansion.
	{"echo $HOME", allow},
	{"echo ${HOME}", allow},
	{`echo "$USER"`, allow},
	{"cat ${F:-/etc/passwd}", runTime},
	{"echo $?", allow},
	{"ls $1", runTime},
	{"echo $((1+2))", allow},
	{"let x=1", allow},
	{"((x++))", allow},
	{"ls @(src|docs)", runTime},
	{"echo {1..200000}", deny("expansion")},
	{"echo {1..100}{1..100}{1..100}", deny("expansion")},

	// Subshells, groups, functions and control flow.
	{"(ls)", allow}, // a ( ) group: see TestSubshellGroups
	{"(cd /; ls)", deny("outside_workspace")},
	{"(ls) | wc -l", allow},
	{"ls | (wc -l)", allow},
	{"(ls) > out.txt", allow}, // see TestGroupRedirects
	{"(ls) > ../ws2/out.txt", deny("outside_workspace")},
	{"((ls))", allow},
	{"( (ls) )", allow},
	{"{ ls; }", allow}, // a { } group: see TestBraceGroups
	{"{ ls; } > .git/hooks/pre-commit", deny("protected_path")},
	{"f() { ls; }", deny("control_flow")},
	{"function f { ls; }", deny("control_flow")},
	{"if true; then ls; fi", allow}, // see TestIfStatements
	{"ls && if true; then ls; fi", allow},
	{"for f in *; do cat $f; done", deny("outside_workspace")}, // unrolled: dangle leads out
	{"while true; do ls; done", runTime},
	{"until false; do ls; done", runTime},
	{"case x in x) ls;; esac", allow},
	{"select x in a; do ls; done", deny("control_flow")},
	{"[[ -f README.md ]]", allow},
	{"[[ -f README.md && -d src ]]", allow},
	{"! ls", allow}, // see TestNegation
	{"time", deny("control_flow")},

	// Assignments and declarations.
	{"FOO=1 ls", deny("assignment")},
	{"LC_ALL=C sort file.txt", allow},
	{"TZ=UTC LANG=en_US.UTF-8 ls", allow},
	{"LD_PRELOAD=/tmp/x.so ls", deny("assignment")},
	{"PATH=/tmp ls", deny("assignment")},
	{"FOO=1", allow},
	{"export FOO=1", deny("assignment")},
	{"declare -x FOO=1", deny("assignment")},
	{"local x=1", allow},
	{"readonly x", deny("assignment")},

	// Background jobs.
	{"ls &", deny("background")},
	{"sleep 100 & ls", deny("background")},
	{"coproc ls", deny("background")},

	// Redirects.
	{"ls > /etc/passwd", deny("outside_workspace")},
	{"ls >> ~/.bashrc", deny("outside_workspace")},
	{"ls > ../out", deny("outside_workspace")},
	{"ls > {{WS2}}/out", deny("outside_workspace")},
	{"ls > escape/cron.d/x", deny("outside_workspace")},
	{"ls > .git/config", deny("protected_path")},
	{"ls >> .git/hooks/pre-commit", deny("protected_path")},
	{"ls > .vtexec/policy.toml", deny("protected_path")},
	{"ls > src/.git/HEAD", deny("protected_path")},
	{"ls 3> x", deny("redirect")},
	{"ls >&3", deny("redirect")},
	{"ls 2>&-", deny("redirect")},
	{"cat <> file.txt", deny("redirect")},
	{"cat <&0", deny("redirect")},
	{"cat <<EOF\nhi\nEOF", allow},
	{"cat <<< hi", allow},
	{"ls |& cat", deny("redirect")},
	{"cat < /etc/passwd", deny("outside_workspace")},
	{"ls > /dev/tcp/127.0.0.1/80", deny("outside_workspace")},
	{"ls > /dev/stdout", deny("outside_workspace")},
	{"ls > src", deny("redirect")},
	{"ls > *", deny("redirect")},
	{"> out.txt", deny("redirect")},

	// Programs that are not the allowlisted ones.
	{"./ls", deny("not_allowed")},
	{"src/tool", deny("not_allowed")},
	{"/tmp/ls", deny("not_allowed")},
	{"no-such-program-xyz", deny("not_allowed")},
	{"bash", deny("forbidden_program")},
	{"bash -i", deny("forbidden_program")},
	{"sh scripts/run.sh", deny("forbidden_program")},
	{"bash -c 'ls' extra", deny("forbidden_program")},
	{"bash -c 'ls' | cat", deny("forbidden_program")},
	{"ls && bash -c 'ls'", deny("forbidden_program")},
	{"zsh -c ls", deny("forbidden_program")},
	{"busybox sh", deny("forbidden_program")},
	{"sudo ls", deny("forbidden_program")},
	{"su -c ls", deny("forbidden_program")},
	{"eval ls", deny("shell_builtin")},
	{"exec ls", deny("shell_builtin")},
	{"source scripts/run.sh", deny("shell_builtin")},
	{". scripts/run.sh", deny("shell_builtin")},
	{"command -v ls", allow}, // answered by vtexec from the trusted PATH
	{"alias ls=rm", deny("shell_builtin")},
	{"make test", ask},
	{"cat README.md | make", ask},

	// shell -c scripts are checked like any other command.
	{"sh -c 'cat /etc/passwd'", deny("outside_workspace")},
	{"bash -c 'echo $HOME'", deny("expansion")},
	{"bash -c 'bash -c \"cat ../x\"'", deny("outside_workspace")},
	{"bash -lc 'ls > /etc/x'", deny("outside_workspace")},
	{"bash -c 'ls &'", deny("background")},

	// Workspace escapes through paths.
	{"cat ../x", deny("outside_workspace")},
	{"cat ../../../../etc/passwd", deny("outside_workspace")},
	{"cat /etc/passwd", deny("outside_workspace")},
	{"cat //etc//passwd", deny("outside_workspace")},
	{"cat /./etc/./passwd", deny("outside_workspace")},
	{"cat src/../../ws2/secret.txt", deny("outside_workspace")},
	{"cat {{WS2}}/secret.txt", deny("outside_workspace")},
	{"cat {{WS}}/../ws2/secret.txt", deny("outside_workspace")},
	{"cat sibling/secret.txt", deny("outside_workspace")},
	{"ls ../ws2", deny("outside_workspace")},
	{"cat escape/passwd", deny("outside_workspace")},
	{"cat up/ws2/secret.txt", deny("outside_workspace")},
	{"cat dangle", deny("outside_workspace")},
	{"cat loop", deny("bad_path")},
	{"cat missing/../../x", deny("bad_path")},
	{"cat ~/.ssh/id_rsa", deny("outside_workspace")},
	{"cat ~root/.bashrc", deny("outside_workspace")},
	{"cat /proc/self/root/etc/passwd", deny("outside_workspace")},
	{"cat /proc/self/environ", deny("outside_workspace")},
	{"cat /proc/self/cwd/README.md", deny("outside_workspace")},
	{"cat /dev/fd/3", deny("outside_workspace")},
	{"cat /dev/stdin", deny("outside_workspace")},
	{"cat " + strings.Repeat("a/", 2100) + "x", deny("bad_path")},
	{"cat ''", deny("bad_path")},
	{"ls /", deny("outside_workspace")},
	{"ls ..", deny("outside_workspace")},
	{"ls ../*", deny("outside_workspace")},
	{"cat /etc/*", deny("outside_workspace")},
	{"cat escape/*", deny("outside_workspace")},
	{"ls {src,..}", deny("outside_workspace")},
	{"cd /", deny("outside_workspace")},
	{"cd ..", deny("outside_workspace")},
	{"cd ../..", deny("outside_workspace")},
	{"cd escape", deny("outside_workspace")},
	{"cd", deny("bad_usage")},
	{"cd -", deny("bad_usage")},
	{"cd src && cat ../../x", deny("outside_workspace")},
	{"cd src; ls ../..", deny("outside_workspace")},
	{"cd src | ls", deny("bad_usage")},
	{"cd docs || cd ../src; cat a.txt", deny("bad_usage")},
	{"ls src && cat /etc/shadow", deny("outside_workspace")},
	{"cat src/a.txt | tee /etc/x", deny("outside_workspace")},

	// Validators: code-running, file-writing and link-following flags.
	{"rg --pre bash x", deny("forbidden_flag")},
	{"rg --pre=cat TODO .", deny("forbidden_flag")},
	{"rg --pre-glob '*.txt' --pre cat x .", deny("forbidden_flag")},
	{"rg -z x", deny("forbidden_flag")},
	{"rg -nz x", deny("forbidden_flag")},
	{"rg --search-zip x", deny("forbidden_flag")},
	{"rg --hostname-bin id x", deny("forbidden_flag")},
	{"rg -L x", deny("outside_workspace")}, // follows escape, sibling, up
	{"rg -L x src inner", allow},
	{"rg --pr cat x", deny("unknown_flag")},
	{"rg TODO /etc", deny("outside_workspace")},
	{"rg -f ../patterns x .", deny("outside_workspace")},
	{"grep -R x .", deny("outside_workspace")},
	{"grep -R x src docs inner", allow},
	{"grep -f /etc/passwd x .", deny("outside_workspace")},
	{"grep x /etc/passwd", deny("outside_workspace")},
	{"sed 1e id file.txt", deny("forbidden_flag")},
	{"sed 's/x/id/e' file.txt", deny("forbidden_flag")},
	{"sed 's/x/y/w /tmp/out' file.txt", deny("outside_workspace")},
	{"sed 'w .git/config' file.txt", deny("protected_path")},
	{"sed 'r /etc/passwd' file.txt", deny("outside_workspace")},
	{"sed -i 's/a/b/' ../x", deny("outside_workspace")},
	{"sed -i 's/a/b/' .git/config", deny("protected_path")},
	{"sed --in-pl 's/a/b/' file.txt", deny("unknown_flag")},
	{"find . -exec /bin/sh \\; -quit", deny("forbidden_program")}, // see TestFindExec
	{`find . "-"exec sh \;`, deny("forbidden_program")},
	{"find . -execdir bash -c 'id' {} +", deny("forbidden_program")},
	{"find . -ok rm {} \\;", deny("forbidden_flag")},
	{"find . -delete", want{"ask", "destructive"}},
	{"find escape -delete", deny("outside_workspace")},
	{"find .git -name config -delete", deny("protected_path")},
	{"find . -fprint out.txt", deny("forbidden_flag")},
	{"find . -fprintf out.txt %p", deny("forbidden_flag")},
	{"find / -name passwd", deny("outside_workspace")},
	{"find -L . -name x", deny("forbidden_flag")},
	{"find . -newer /etc/passwd", deny("outside_workspace")},
	{"cp src/a.txt /tmp/x", deny("outside_workspace")},
	{"cp /etc/passwd .", deny("outside_workspace")},
	{"cp src/a.txt .git/hooks/pre-commit", deny("protected_path")},
	{"cp -t .git src/a.txt", deny("protected_path")},
	{"cp -l src/a.txt b", deny("forbidden_flag")},
	{"cp -s src/a.txt b", deny("forbidden_flag")},
	{"cp -rL src b", deny("forbidden_flag")},
	// A write that replaces a symlink lands where the link is, not where it points.
	{"cp --remove-destination file.txt .git/lnk", deny("protected_path")},
	{"cp file.txt .git/lnk", deny("protected_path")},
	// sed reads -f scripts when it runs; a list can rewrite the file after the check.
	{"sed -f scripts/ok.sed file.txt", deny("forbidden_flag")},
	{"echo 1e\\ id > scripts/ok.sed && sed -f scripts/ok.sed file.txt", deny("forbidden_flag")},
	{"sed --sandbox -f scripts/ok.sed file.txt", allow},
	{"ls -L escape", deny("forbidden_flag")},
	{"ls --foo", deny("unknown_flag")},
	{"cat -Z README.md", deny("unknown_flag")},
	{"wc --files0-from=list", deny("forbidden_flag")},
	{"head -c abc README.md", deny("bad_usage")},
	{"cat --show-al README.md", deny("unknown_flag")},

	// Parse errors fail closed.
	{"cat 'unterminated", deny("parse_error")},
	{"ls &&", deny("parse_error")},
	{"", deny("bad_request")},
	{"   ", deny("bad_request")},
}

type tableCase = struct {
	cmd  string
	want want
}

func TestSecurityTable(t *testing.T) {
	require.GreaterOrEqual(t, len(cases), 150)
	checkTable(t, cases)
}

// checkTable checks every case against a fresh fixture workspace, with
// stand-ins for the programs Debian's base lacks.
func checkTable(t *testing.T, table []tableCase) {
	checkTableWith(t, standinEngine(t), table)
}

// checkTableWith checks every case with eng.
func checkTableWith(t *testing.T, eng *vtexec.Engine, table []tableCase) {
	ws := fixture(t)
	for _, tc := range table {
		cmd := expandCase(tc.cmd, ws)
		name := tc.cmd
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			d, err := eng.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
			var re *vtexec.RequestError
			if errors.As(err, &re) {
				d = vtexec.Decision{Decision: "deny", Code: re.Code, Reason: re.Reason, Hint: re.Hint}
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want.decision, string(d.Decision), "reason: %s", d.Reason)
			assert.Equal(t, tc.want.code, d.Code, "reason: %s", d.Reason)
			if d.Decision != "allow" {
				assert.NotEmpty(t, d.Reason)
				assert.NotEmpty(t, d.Hint)
			}
		})
	}
}
