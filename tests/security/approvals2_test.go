package security

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/execpolicy"
)

// recordingApprover answers with a fixed answer and keeps the questions.
type recordingApprover struct {
	answer vtexec.Answer
	asked  []vtexec.Question
}

func (r *recordingApprover) Approve(_ context.Context, q vtexec.Question) (vtexec.Answer, error) {
	r.asked = append(r.asked, q)
	return r.answer, nil
}

func runAnswering(t *testing.T, ws, cmd, session string, a vtexec.Answer) (vtexec.Result, *recordingApprover) {
	t.Helper()
	ap := &recordingApprover{answer: a}
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, Session: session, AuditLog: "off", Approver: ap})
	require.NoError(t, err)
	return res, ap
}

// "always" on a command without arguments approves exactly that.
func TestAlwaysWithoutArgumentsIsExact(t *testing.T) {
	ws := fixture(t)
	res, _ := runAnswering(t, ws, "base64", "", vtexec.AnswerAlways)
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.Equal(t, "ask", string(decide(t, ws, "base64 file.txt").Decision), "an always answer to base64 alone allowed every base64")
	assert.Equal(t, "allow", string(decide(t, ws, "base64").Decision))
}

// A word that names a file (now, later in the list, or from the part's own
// directory) is not a subcommand word, and programs without subcommands
// are approved for exactly their arguments.
func TestApprovalsOfPathsAreExact(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "src", "victim.txt"), []byte("v\n"), 0o644))
	for _, tc := range []struct{ first, later string }{
		{"touch build && rm build", "rm build -r -f src"},
		{"cd src && rm victim.txt", "rm victim.txt -r -f docs"},
		{"base64 file.txt", "base64 file.txt -w 0"},
	} {
		res, _ := runAnswering(t, ws, tc.first, "s-"+strings.Fields(tc.first)[0], vtexec.AnswerSession)
		require.Equal(t, "allow", string(res.Decision.Decision), "%s: %s", tc.first, res.Decision.Reason)
		d, err := testEngine.Check(context.Background(), vtexec.Request{Command: tc.later, Workspace: ws, Session: "s-" + strings.Fields(tc.first)[0], AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, "ask", string(d.Decision), "approving %q approved %q", tc.first, tc.later)
	}
	_, err := os.Stat(filepath.Join(ws, "docs"))
	assert.NoError(t, err)
}

// A .vtexec that is a symbolic link would make the policy files writable
// under another name.
func TestVtexecDirMustBeARealDirectory(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.Rename(filepath.Join(ws, ".vtexec"), filepath.Join(ws, "conf")))
	require.NoError(t, os.Symlink("conf", filepath.Join(ws, ".vtexec")))
	_, err := testEngine.Check(context.Background(), vtexec.Request{Command: "true > conf/policy.toml", Workspace: ws, AuditLog: "off"})
	var re *vtexec.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "bad_request", re.Code)
}

// A .vtexec made a link (or first made, as a link) after the workspace's
// policy has been read and kept is seen at the next request, however
// many came before with the same engine.
func TestVtexecDirMadeALinkLaterIsRefused(t *testing.T) {
	for _, had := range []bool{true, false} {
		ws := fixture(t)
		if !had {
			require.NoError(t, os.RemoveAll(filepath.Join(ws, ".vtexec")))
		}
		e := vtexec.NewEngine(vtexec.Config{})
		for range 4 { // loaded, found unchanged with a watch, then kept
			_, err := e.Check(context.Background(), vtexec.Request{Command: "ls", Workspace: ws, AuditLog: "off"})
			require.NoError(t, err)
		}
		require.NoError(t, os.MkdirAll(filepath.Join(ws, "conf"), 0o755))
		require.NoError(t, os.RemoveAll(filepath.Join(ws, ".vtexec")))
		require.NoError(t, os.Symlink("conf", filepath.Join(ws, ".vtexec")))
		_, err := e.Check(context.Background(), vtexec.Request{Command: "true > conf/policy.toml", Workspace: ws, AuditLog: "off"})
		var re *vtexec.RequestError
		require.ErrorAs(t, err, &re, "had .vtexec: %v", had)
		assert.Equal(t, "bad_request", re.Code)
	}
}

// An extra root from the policy may not cover vtexec's own directories.
func TestRootsDoNotCoverOwnDirectories(t *testing.T) {
	ws := fixture(t)
	state := os.Getenv("XDG_STATE_HOME")
	cfg := os.Getenv("XDG_CONFIG_HOME")
	require.NoError(t, os.MkdirAll(filepath.Join(cfg, "vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "vtexec", "policy.toml"), []byte(
		"[[root]]\npath = \""+state+"\"\naccess = \"read-write\"\n"), 0o644))
	_, err := testEngine.Check(context.Background(), vtexec.Request{Command: "ls", Workspace: ws, AuditLog: "off"})
	var re *vtexec.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "bad_request", re.Code)
}

// The question shows redirects, and an interpreter reading its program
// from standard input runs inline code.
func TestQuestionShowsRedirectsAndStdinIsInlineCode(t *testing.T) {
	ws := fixture(t)
	checker := &execpolicy.Checker{TrustedPath: standinPath(t, "python3", "nodejs", "perl5.36-x86_64-linux-gnu")}
	w := mustWorkspace(t, ws)
	for _, cmd := range []string{"python3 < README.md", "cat README.md | python3", "nodejs -e 1", "perl5.36-x86_64-linux-gnu -e 1",
		"python3 - < README.md", "python3 -W ignore < README.md", "python3 -X dev -- - < README.md", "nodejs --require x.js < README.md",
		"cat README.md | nodejs --title t"} {
		v := checker.Check(cmd, w)
		assert.Equal(t, "inline_code", v.Code, "%s: %s", cmd, v.Reason)
		assert.True(t, v.NeverAlways, cmd)
	}
	// A script named on the command line is the program; standard input
	// is its data.
	for _, cmd := range []string{"python3 scripts/run.sh < README.md", "cat README.md | nodejs src/b.go", "python3 -W ignore scripts/run.sh < README.md"} {
		v := checker.Check(cmd, w)
		assert.Equal(t, "not_allowed", v.Code, "%s: %s", cmd, v.Reason)
		assert.False(t, v.NeverAlways, cmd)
	}

	_, ap := runAnswering(t, ws, "base64 < README.md > out.txt", "", vtexec.AnswerOnce)
	require.Len(t, ap.asked, 1)
	text := ap.asked[0].Text()
	assert.Contains(t, text, "< README.md")
	assert.Contains(t, text, "> out.txt")
}

// A deny rule about a program holds for its versioned names too.
func TestDenyRulesCoverVersionedNames(t *testing.T) {
	p := execpolicy.PolicyRule{Program: "python3", Decision: "deny"}
	assert.True(t, p.Matches(execpolicy.Part{Argv: []string{"python3.11", "x.py"}}))
	a := execpolicy.PolicyRule{Program: "python3", Decision: "allow"}
	assert.False(t, a.Matches(execpolicy.Part{Argv: []string{"python3.11", "x.py"}}), "an allow rule stays exact")
}
