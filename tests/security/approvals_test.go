package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/workspace"
)

type answerWith vtexec.Answer

func (a answerWith) Approve(context.Context, vtexec.Question) (vtexec.Answer, error) {
	return vtexec.Answer(a), nil
}

func decide(t *testing.T, ws, cmd string) vtexec.Decision {
	t.Helper()
	d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	return d
}

// A hostile repository may ship .vtexec/policy.local.toml. Answering
// "always" to something else appends to that file; the content the person
// never vouched for must stay untrusted.
func TestAlwaysDoesNotTrustWhatWasAlreadyThere(t *testing.T) {
	ws := fixture(t)
	local := filepath.Join(ws, ".vtexec", "policy.local.toml")
	require.NoError(t, os.WriteFile(local, []byte("[[rule]]\nprogram = \"base64\"\ndecision = \"allow\"\n"), 0o644))
	require.Equal(t, "ask", string(decide(t, ws, "base64 file.txt").Decision))

	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: "base32 file.txt", Workspace: ws, AuditLog: "off", Approver: answerWith(vtexec.AnswerAlways)})
	require.NoError(t, err)
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.NotEmpty(t, res.Decision.Note, "the person should learn that the rule waits for policy trust")

	assert.Equal(t, "ask", string(decide(t, ws, "base64 file.txt").Decision), "the planted rule became trusted")
}

// vtexec's own configuration and state may lie inside the workspace (a
// workspace at $HOME). Commands there could rewrite the user's policy or
// read the trust store and session secrets, and recursive tools reach
// them through any parent directory: vtexec refuses to work there.
func TestOwnConfigAndStateInsideWorkspaceRefused(t *testing.T) {
	for _, env := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		ws := fixture(t)
		t.Setenv(env, filepath.Join(ws, ".local"))
		for _, cmd := range []string{"cat file.txt", "grep -r token .local"} {
			_, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
			var re *vtexec.RequestError
			require.ErrorAs(t, err, &re, "%s with %s inside", cmd, env)
			assert.Equal(t, "bad_request", re.Code)
			assert.Contains(t, re.Hint, env)
		}
	}
	ws := fixture(t)
	_, err := testEngine.Check(context.Background(), vtexec.Request{Command: "ls", Workspace: ws, AuditLog: filepath.Join(ws, "audit.jsonl")})
	var re *vtexec.RequestError
	require.ErrorAs(t, err, &re, "an audit log inside the workspace")
}

// git subcommands that write take their pathspecs as writes: git rm or
// git mv may not touch .vtexec, even once approved.
func TestGitWritesDoNotReachVtexecFiles(t *testing.T) {
	l := newGitLab(t)
	l.write(".vtexec/policy.toml", "[[rule]]\nprogram = \"cat\"\ndecision = \"deny\"\n")
	l.write("evil.toml", "# planted\n")
	l.setup("add", "-A")
	l.setup("commit", "-qm", "policy")
	for _, cmd := range []string{"git rm -q .vtexec/policy.toml", "git mv evil.toml .vtexec/policy.local.toml",
		"git checkout HEAD -- .vtexec/policy.toml", "git restore .vtexec", "git rm -r -q --cached .vtexec"} {
		res := l.run(cmd, true)
		assert.Equal(t, "deny", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		assert.Equal(t, "protected_path", res.Decision.Code, "%s: %s", cmd, res.Decision.Reason)
	}
	_, err := os.Stat(filepath.Join(l.ws, ".vtexec", "policy.toml"))
	assert.NoError(t, err)
}

// Programs that run another program given as arguments are refused like
// the shells they could run; an interpreter with a version in its name is
// the interpreter.
func TestRunnersOfOtherProgramsAndVersionedInterpreters(t *testing.T) {
	ws := fixture(t)
	// Refused by name, installed or not.
	for _, cmd := range []string{"ionice bash -c id", "taskset 1 bash -c id", "chrt 0 id", "setarch x86_64 bash", "flock x bash -c id"} {
		d := decide(t, ws, cmd)
		assert.Equal(t, "deny", string(d.Decision), "%s: %s", cmd, d.Reason)
		assert.Equal(t, "forbidden_program", d.Code, "%s: %s", cmd, d.Reason)
	}

	wsp := mustWorkspace(t, ws)
	checker := &execpolicy.Checker{TrustedPath: standinPath(t, "python3.11", "perl5.36.0", "bash5.2")}
	for cmd, code := range map[string]string{
		"python3.11 -c 'print(1)'": "inline_code",
		"perl5.36.0 -e 1":          "inline_code",
		"bash5.2 -c id":            "forbidden_program",
	} {
		v := checker.Check(cmd, wsp)
		assert.Equal(t, code, v.Code, "%s: %s", cmd, v.Reason)
		if code == "inline_code" {
			assert.True(t, v.NeverAlways, cmd)
		}
	}
}

// Deny beats ask beats allow, whatever vtexec's own checks found.
func TestAskRuleBeatsAllowRule(t *testing.T) {
	l := newGitLab(t)
	cfg := os.Getenv("XDG_CONFIG_HOME")
	require.NoError(t, os.MkdirAll(filepath.Join(cfg, "vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "vtexec", "policy.toml"), []byte(
		"[[rule]]\nprogram = \"git\"\nsubcommand = [\"commit\"]\ndecision = \"ask\"\n\n"+
			"[[rule]]\nprogram = \"git\"\nsubcommand = [\"commit\"]\ndecision = \"allow\"\n"), 0o644))
	res := l.run("git commit -qam x", false)
	assert.NotEqual(t, "allow", string(res.Decision.Decision), "%s %s", res.Decision.Rule, res.Decision.Reason)
}

func mustWorkspace(t *testing.T, root string) *workspace.Workspace {
	t.Helper()
	w, err := workspace.New(root)
	require.NoError(t, err)
	return w
}

// A deny rule about a git subcommand holds whatever global options come
// before it.
func TestPolicyRulesSeeGitSubcommandPastGlobalOptions(t *testing.T) {
	l := newGitLab(t)
	cfg := os.Getenv("XDG_CONFIG_HOME")
	require.NoError(t, os.MkdirAll(filepath.Join(cfg, "vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "vtexec", "policy.toml"), []byte(
		"[[rule]]\nprogram = \"git\"\nsubcommand = [\"log\"]\ndecision = \"deny\"\n"), 0o644))
	for _, cmd := range []string{"git log", "git -C . log", "git -P log", "git --no-pager log", "git --git-dir=.git log -1"} {
		res := l.run(cmd, true)
		assert.Equal(t, "deny", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		assert.Equal(t, "policy_deny", res.Decision.Code, cmd)
	}
	assert.Equal(t, "allow", string(l.run("git -C . status", false).Decision.Decision))
}
