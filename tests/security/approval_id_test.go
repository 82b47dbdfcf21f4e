//go:build !windows

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

// A harness approves through an approval id: it works for exactly the
// command, cwd and session it was given for, once, and nothing else.
func TestApprovalIDsApproveExactlyWhatWasAsked(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	e := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { e.Close() })
	idFor := func(cmd, cwd, session string) string {
		d, err := e.Check(ctx, vtexec.Request{Command: cmd, Cwd: cwd, Session: session, Workspace: ws, AuditLog: "off", WantApprovalID: true})
		require.NoError(t, err)
		require.Equal(t, "ask", string(d.Decision), d.Reason)
		require.NotEmpty(t, d.ApprovalID)
		return d.ApprovalID
	}
	run := func(cmd, cwd, session, id string, answer vtexec.Answer) vtexec.Result {
		res, err := e.Run(ctx, vtexec.Request{Command: cmd, Cwd: cwd, Session: session, Workspace: ws, AuditLog: "off",
			Approver: vtexec.IDApprover{ID: id, Answer: answer, Session: session}})
		require.NoError(t, err)
		return res
	}
	id := idFor("rm docs/guide.md", "", "s1")
	assert.Equal(t, "deny", string(run("rm README.md", "", "s1", id, vtexec.AnswerOnce).Decision.Decision), "another command")
	assert.Equal(t, "deny", string(run("rm docs/guide.md", "src", "s1", id, vtexec.AnswerOnce).Decision.Decision), "another cwd")
	assert.Equal(t, "deny", string(run("rm docs/guide.md", "", "s2", id, vtexec.AnswerOnce).Decision.Decision), "another session")
	assert.Equal(t, "deny", string(run("rm docs/guide.md", "", "s1", id+"0", vtexec.AnswerOnce).Decision.Decision), "a forged id")
	assert.FileExists(t, filepath.Join(ws, "docs", "guide.md"))

	res := run("rm docs/guide.md", "", "s1", id, vtexec.AnswerOnce)
	assert.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.NoFileExists(t, filepath.Join(ws, "docs", "guide.md"))

	require.NoError(t, os.WriteFile(filepath.Join(ws, "docs", "guide.md"), []byte("again\n"), 0o644))
	res = run("rm docs/guide.md", "", "s1", id, vtexec.AnswerOnce)
	assert.Equal(t, "deny", string(res.Decision.Decision), "an id works once")
	assert.FileExists(t, filepath.Join(ws, "docs", "guide.md"))
}

// An id covers how the commands are joined, not only which they are:
// one given for a command that removes a file only if another exists
// does not approve removing it when it does not, nor in a pipeline or
// a ( ) group, nor in an if's other branch.
func TestApprovalIDsCoverHowCommandsAreJoined(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	e := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { e.Close() })
	const asked = "test -f absent.txt && rm file.txt"
	d, err := e.Check(ctx, vtexec.Request{Command: asked, Session: "s1", Workspace: ws, AuditLog: "off", WantApprovalID: true})
	require.NoError(t, err)
	require.Equal(t, "ask", string(d.Decision), d.Reason)
	for _, other := range []string{
		"test -f absent.txt || rm file.txt",
		"! test -f absent.txt && rm file.txt",
		"test -f absent.txt ; rm file.txt",
		"test -f absent.txt | rm file.txt",
		"test -f absent.txt && (rm file.txt)",
		"if test -f absent.txt; then :; else rm file.txt; fi",
	} {
		res, err := e.Run(ctx, vtexec.Request{Command: other, Session: "s1", Workspace: ws, AuditLog: "off",
			Approver: vtexec.IDApprover{ID: d.ApprovalID, Answer: vtexec.AnswerOnce, Session: "s1"}})
		require.NoError(t, err)
		assert.Equal(t, "deny", string(res.Decision.Decision), "the id for %q approved %q", asked, other)
		assert.FileExists(t, filepath.Join(ws, "file.txt"), other)
	}
	res, err := e.Run(ctx, vtexec.Request{Command: asked, Session: "s1", Workspace: ws, AuditLog: "off",
		Approver: vtexec.IDApprover{ID: d.ApprovalID, Answer: vtexec.AnswerOnce, Session: "s1"}})
	require.NoError(t, err)
	assert.Equal(t, "allow", string(res.Decision.Decision), "the command it was given for: %s", res.Decision.Reason)

	// A group's own redirect is part of it too.
	d, err = e.Check(ctx, vtexec.Request{Command: "rm README.md", Session: "s1", Workspace: ws, AuditLog: "off", WantApprovalID: true})
	require.NoError(t, err)
	require.Equal(t, "ask", string(d.Decision), d.Reason)
	res, err = e.Run(ctx, vtexec.Request{Command: "{ rm README.md; } > log.txt", Session: "s1", Workspace: ws, AuditLog: "off",
		Approver: vtexec.IDApprover{ID: d.ApprovalID, Answer: vtexec.AnswerOnce, Session: "s1"}})
	require.NoError(t, err)
	assert.Equal(t, "deny", string(res.Decision.Decision))
	assert.FileExists(t, filepath.Join(ws, "README.md"))
	assert.NoFileExists(t, filepath.Join(ws, "log.txt"))
}

// No command can mint an id: the key lives in vtexec's state directory,
// which the kernel box keeps out of reach even of an approved tool.
func TestCommandsCannotReadTheApprovalKey(t *testing.T) {
	s := newAttackSetup(t)
	// Make the key, as a check --json would.
	cmd := s.command(t, "")
	cmd.Args = []string{cmd.Args[0], "check", "--json", "--workspace", s.ws, "--", "rm targets.txt"}
	out, err := cmd.Output()
	require.Error(t, err, "rm asks, so check exits 3")
	require.Contains(t, string(out), `"approval_id":"v1.`)
	key := filepath.Join(s.state, "vtexec", "approval.key")
	require.FileExists(t, key)
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "targets.txt"), []byte(key+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(`
open(my $t, '<', "targets.txt") or die; chomp(my $k = <$t>);
print "key: ", (open(my $f, '<', $k) ? "ok" : "denied"), "\n";
`), 0o644))
	res, got := s.run(t, "")
	assert.Equal(t, "denied", got["key"], res.Stdout+res.Stderr)
	res, got = s.run(t, "off")
	assert.Equal(t, "ok", got["key"], "unconfined, the same read works (the probe works): "+res.Stdout+res.Stderr)
}
