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

// destructive is a removal inside the workspace: a person approves it.
var destructive = want{"ask", "destructive"}

// The workspace-writing tools: mkdir, touch, mv, tee write only inside the
// workspace and never on a protected path; rm always asks, and is refused
// outright outside, on protected paths and on the workspace root; ln is
// refused.
var writetoolsCases = []tableCase{
	// chmod -R reaches everything below, .git included.
	{"chmod -R 777 .", deny("protected_path")},
	{"chmod -R u+w src", allow},
	{"chmod -R go-w sibling", deny("outside_workspace")},
	{"chmod -R go-w up/ws", deny("protected_path")}, // the workspace root, through a link
	// mkdir: every operand is a write, -p parents included.
	{"mkdir build", allow},
	{"mkdir -p build/a/b dist", allow},
	{"mkdir -m 700 private", allow},
	{"mkdir -p inner/new", allow},
	{"mkdir /tmp/x", deny("outside_workspace")},
	{"mkdir -p escape/x", deny("outside_workspace")},
	{"mkdir -p ../ws2/x", deny("outside_workspace")},
	{"mkdir -p sibling/x", deny("outside_workspace")},
	{"mkdir -p new/../../x", deny("bad_path")},
	{"mkdir ~/x", deny("outside_workspace")},
	{"mkdir -p dangle", deny("outside_workspace")},
	{"mkdir .git/hooks/x", deny("protected_path")},
	{"mkdir -p src/.git", deny("protected_path")},
	{"mkdir -p .vtexec/x", deny("protected_path")},
	{"mkdir --context=x dir", deny("forbidden_flag")},

	// touch: operands written, -r read; a dangling link is followed to
	// where touch would create the file.
	{"touch new.txt", allow},
	{"touch src/a.txt docs/new.md", allow},
	{"touch -d '2 days ago' file.txt", allow},
	{"touch -r README.md file.txt", allow},
	{"touch inner/new.txt", allow},
	{"touch dangle", deny("outside_workspace")},
	{"touch escape/x", deny("outside_workspace")},
	{"touch sibling/x", deny("outside_workspace")},
	{"touch .git/index.lock", deny("protected_path")},
	{"touch .git/lnk", deny("protected_path")},
	// linked.txt is what .git/lnk leads to: read as part of .git.
	{"touch linked.txt", deny("protected_path")},
	{"cat linked.txt", allow},
	{"touch .vtexec/policy.toml", deny("protected_path")},
	{"touch -r ../ws2/secret.txt file.txt", deny("outside_workspace")},

	// tee: every operand is a write.
	{"cat src/a.txt | tee out.txt", allow},
	{"ls | tee -a log.txt src/log.txt", allow},
	{"echo x | tee /etc/x", deny("outside_workspace")},
	{"echo x | tee -a ~/.bashrc", deny("outside_workspace")},
	{"echo x | tee escape/cron.d/x", deny("outside_workspace")},
	{"echo x | tee dangle", deny("outside_workspace")},
	{"echo x | tee .git/hooks/pre-commit", deny("protected_path")},
	{"echo x | tee -a .git/config", deny("protected_path")},

	// mv: sources are taken away from where they sit, the destination and
	// each landing place are written.
	{"mv file.txt renamed.txt", allow},
	{"mv src/a.txt docs", allow},
	{"mv -t docs file.txt README.md", allow},
	{"mv -b file.txt README.md", allow},
	{"mv escape etc-link", deny("outside_workspace")}, // moves the link, which leads outside
	{"mv inner src2", allow},                          // inner -> src still leads inside
	{"mv dangle docs", deny("outside_workspace")},
	{"mv .git/config x", deny("protected_path")},
	{"mv .git old-git", deny("protected_path")},
	{"mv .git/lnk x", deny("protected_path")},
	{"mv .vtexec/policy.toml x", deny("protected_path")},
	{"mv file.txt .git/hooks/pre-commit", deny("protected_path")},
	{"mv scripts/run.sh .git/hooks", deny("protected_path")},
	{"mv -t .git/hooks scripts/run.sh", deny("protected_path")},
	{"mv file.txt .git/lnk", deny("protected_path")},
	{"mv file.txt ../ws2/", deny("outside_workspace")},
	{"mv file.txt escape/", deny("outside_workspace")},
	{"mv file.txt dangle", deny("outside_workspace")},
	{"mv ../ws2/secret.txt .", deny("outside_workspace")},
	{"mv sibling/secret.txt .", deny("outside_workspace")},
	{"mv escape/passwd .", deny("outside_workspace")},
	{"mv . moved", deny("protected_path")},
	{"mv . ../moved", deny("outside_workspace")},
	{"mv {{WS}} docs", deny("protected_path")},
	{"mv up/ws docs/ws", deny("protected_path")},
	{"mv -b -S /../../x file.txt README.md", deny("forbidden_flag")},

	// rm: never simply allowed.
	{"rm file.txt", destructive},
	{"rm -f file.txt README.md", destructive},
	{"rm -rf src", destructive},
	{"rm -rf src/", destructive},
	{"rm -r docs && ls", destructive},
	{"rm -rf *", destructive}, // the glob names entries, links included
	{"rm missing.txt", destructive},
	{"rm {{WS}}/file.txt", destructive},
	{"timeout 5 rm file.txt", destructive},
	// A link is removed, not its target.
	{"rm escape", destructive},
	{"rm -rf sibling", destructive},
	{"rm -f dangle loop up", destructive},
	// Through a link that leads out, and everything outside.
	{"rm escape/passwd", deny("outside_workspace")},
	{"rm -rf escape/", deny("outside_workspace")},
	{"rm -rf sibling/", deny("outside_workspace")},
	{"rm -rf sibling/secret.txt", deny("outside_workspace")},
	{"rm ../ws2/secret.txt", deny("outside_workspace")},
	{"rm -rf {{WS2}}", deny("outside_workspace")},
	{"rm -rf /", deny("outside_workspace")},
	{"rm -rf /*", deny("outside_workspace")},
	{"rm -rf ~", deny("outside_workspace")},
	{"rm -rf ~/", deny("outside_workspace")},
	{"rm -rf ..", deny("outside_workspace")},
	{"rm -rf up/", deny("outside_workspace")},
	{"rm -rf {{WS}}/..", deny("outside_workspace")},
	{"rm -rf /etc", deny("outside_workspace")},
	{"rm -f /proc/self/cwd/file.txt", deny("outside_workspace")},
	// Protected paths, however they are reached.
	{"rm -rf .git", deny("protected_path")},
	{"rm -rf .git/", deny("protected_path")},
	{"rm .git/config", deny("protected_path")},
	{"rm -rf .git/hooks", deny("protected_path")},
	{"rm .git/lnk", deny("protected_path")},
	{"rm -rf .vtexec", deny("protected_path")},
	{"rm -f .vtexec/policy.toml", deny("protected_path")},
	{"rm -rf .[!.]*", deny("protected_path")},
	{"rm file.txt .git/config", deny("protected_path")},
	// The workspace root itself.
	{"rm -rf .", deny("protected_path")},
	{"rm -rf ./", deny("protected_path")},
	{"rm -rf {{WS}}", deny("protected_path")},
	{"rm -rf {{WS}}/", deny("protected_path")},
	{"rm -rf src/..", deny("protected_path")},
	{"rm -rf up/ws", deny("protected_path")},
	{"cd src && rm -rf ..", deny("protected_path")},
	{"cd src && rm -rf .", deny("bad_usage")},
	{"rm -rf --no-preserve-root /", deny("forbidden_flag")},
	{"rm -rf --no-preserve-root src", deny("forbidden_flag")},
	{"rm", deny("bad_usage")},
	{"rm --help", allow},

	// ln: refused.
	{"ln -s /etc etc2", deny("forbidden_program")},
	{"ln file.txt hard", deny("forbidden_program")},
	{"ln -s ../ws2 s", deny("forbidden_program")},
	{"ln -sf src/a.txt a", deny("forbidden_program")},
}

func TestWritetools(t *testing.T) { checkTable(t, writetoolsCases) }

// A recursive removal that would take a nested repository with it is
// refused, approval or not; without it, the same directory is asked about.
// A recursive copy or chmod that would write a .git is refused too.
func TestWritetoolsNestedRepo(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "vendor", "lib", ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "vendor", "x.txt"), nil, 0o644))
	for cmd, want := range map[string]want{
		"rm -rf vendor":          deny("protected_path"),
		"rm -rf vendor/lib":      deny("protected_path"),
		"rm -rf vendor/lib/.git": deny("protected_path"),
		"rm vendor/x.txt":        destructive,
		"rm -d vendor":           destructive,
		// A recursive copy or chmod reaches the .git below, and
		// "cp -r repo/. ." would land repo/.git on the workspace's own.
		"cp -r vendor/lib/. .":    deny("protected_path"),
		"cp -a vendor/lib/ copy":  deny("protected_path"),
		"cp -R vendor copy":       deny("protected_path"),
		"cp -r src copy":          allow,
		"cp -r vendor/x.txt copy": allow,
		"chmod -R u+w vendor":     deny("protected_path"),
		"chmod u+w vendor":        allow,
	} {
		d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
		require.NoError(t, err)
		assert.Equal(t, want.decision, string(d.Decision), "%s: %s", cmd, d.Reason)
		assert.Equal(t, want.code, d.Code, "%s: %s", cmd, d.Reason)
	}
}

// A link that leads inside from where it is may be moved or copied onto
// an existing link: it then sits where that link sat, not where that
// link pointed, and from there it must still lead inside.
func TestLinkReplacingALinkIsJudgedWhereItLands(t *testing.T) {
	ws := fixture(t)
	// From src/deep, S leads to src/ws2/secret.txt (inside); from the
	// root, to the real ../ws2/secret.txt.
	require.NoError(t, os.Symlink("../ws2/secret.txt", filepath.Join(ws, "src", "deep", "S")))
	require.NoError(t, os.Symlink("src/deep/nested.txt", filepath.Join(ws, "top.lnk")))
	for _, cmd := range []string{
		"mv -f src/deep/S top.lnk",
		"mv -T src/deep/S top.lnk",
		"cp -Pf src/deep/S top.lnk",
		"cp -P --remove-destination src/deep/S top.lnk",
	} {
		d := decide(t, ws, cmd)
		assert.Equal(t, "deny", string(d.Decision), cmd)
		assert.Equal(t, "outside_workspace", d.Code, "%s: %s", cmd, d.Reason)
	}
	assert.Equal(t, "allow", string(decide(t, ws, "mv src/deep/S src/deep/S2").Decision))
}

// Names a program builds from text values: a value that becomes part of a
// file name must not hold a "/" or be "..", whatever the program.
var namePartCases = []tableCase{
	{"git format-patch -1 --suffix=/../../pwn", deny("forbidden_flag")},
	{"git format-patch -1 -o out --suffix /../../../pwn", deny("forbidden_flag")},
	{"git format-patch -1 -v ../../x", deny("forbidden_flag")},
	{"git format-patch -1 --reroll-count=2/../../x", deny("forbidden_flag")},
	{"cp -b -S /../../pwn file.txt copy.txt", deny("forbidden_flag")},
	{"mv -b --suffix=.. file.txt moved.txt", deny("forbidden_flag")},
	{"cp -b -S .orig file.txt copy.txt", allow},
}

func TestNamePartsStayNames(t *testing.T) { checkTable(t, namePartCases) }
