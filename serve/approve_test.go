package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/plan"
)

// person answers elicitations: the first answer whose command occurs
// in the message, and records what it was asked.
type person struct {
	mu      sync.Mutex
	answers map[string]string // command → once, session, always, deny, or "decline"
	asked   []*mcp.ElicitParams
}

func (p *person) handler(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req.Params)
	for cmd, answer := range p.answers {
		if strings.Contains(req.Params.Message, "  $ "+cmd+"\n") {
			if answer == "decline" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
		}
	}
	return &mcp.ElicitResult{Action: "cancel"}, nil
}

func (p *person) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.asked)
}

func (p *person) client(t *testing.T, s *Server, version string) *mcp.ClientSession {
	return connectVersion(t, s, &mcp.ClientOptions{ElicitationHandler: p.handler}, version)
}

// askModes are the two ways a client is asked: elicitation/create while
// the call waits (protocol versions before 2026-07-28), and input
// requests answered in a second round of the call (2026-07-28).
var askModes = []struct{ name, version string }{
	{"inline", "2025-11-25"},
	{"round-trip", "2026-07-28"},
}

// eachMode runs f once per ask mode.
func eachMode(t *testing.T, f func(t *testing.T, version string)) {
	for _, m := range askModes {
		t.Run(m.name, func(t *testing.T) { f(t, m.version) })
	}
}

// approval is the decision part of a shell call's structured content.
func approval(t *testing.T, res *mcp.CallToolResult) (decision, code, how string) {
	t.Helper()
	var r struct {
		Decision struct {
			Decision string `json:"decision"`
			Code     string `json:"code"`
			Approval string `json:"approval"`
		} `json:"decision"`
	}
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r))
	return r.Decision.Decision, r.Decision.Code, r.Decision.Approval
}

func TestElicitOnceAndDeny(t *testing.T) {
	eachMode(t, func(t *testing.T, version string) {
		s, ws := newServer(t)
		for _, f := range []string{"gone.txt", "keep.txt", "also-keep.txt"} {
			require.NoError(t, os.WriteFile(filepath.Join(ws, f), nil, 0o644))
		}
		p := &person{answers: map[string]string{"rm gone.txt": "once", "rm keep.txt": "deny", "rm also-keep.txt": "decline"}}
		cs := p.client(t, s, version)

		res, txt, _ := call(t, cs, ToolShell, map[string]any{"command": "rm gone.txt", "description": "tidy up\n\u202eok"})
		assert.False(t, res.IsError, txt)
		assert.NoFileExists(t, filepath.Join(ws, "gone.txt"))
		d, _, how := approval(t, res)
		assert.Equal(t, "allow", d)
		assert.Equal(t, "once", how)

		require.Equal(t, 1, p.count())
		q := p.asked[0]
		assert.Contains(t, q.Message, "vtexec: approve this command?\n  in "+ws+"\n  $ rm gone.txt\n")
		assert.Contains(t, q.Message, "exactly these arguments")
		assert.Contains(t, q.Message, "\n  the agent says it is for: tidy up\\u000a\\u202eok\n", "the agent's words, escaped")
		offer := "Answer once (run it this time), session (allow the rule for this connection), always (record the rule in .vtexec/policy.local.toml) or deny."
		if version < roundTripVersion {
			offer += " No answer within 2m0s denies." // the server waits, so it times out
		}
		assert.True(t, strings.HasSuffix(q.Message, "\n"+offer), q.Message)
		schema, err := json.Marshal(q.RequestedSchema)
		require.NoError(t, err)
		assert.Contains(t, string(schema), `"enum":["once","session","always","deny"]`)

		for _, f := range []string{"keep.txt", "also-keep.txt"} {
			res, txt, _ = call(t, cs, ToolShell, map[string]any{"command": "rm " + f})
			assert.True(t, res.IsError)
			assert.Contains(t, txt, "refused: deny denied_by_user: a person refused: ")
			assert.FileExists(t, filepath.Join(ws, f))
		}
		assert.Equal(t, 3, p.count())
	})
}

func TestElicitSessionHoldsForTheConnection(t *testing.T) {
	eachMode(t, func(t *testing.T, version string) {
		s, _ := newServer(t)
		p := &person{answers: map[string]string{"git commit -mone": "session"}} // as shown: canonical
		a := p.client(t, s, version)

		res, txt, _ := call(t, a, ToolShell, map[string]any{"command": "git commit -m one"})
		assert.False(t, res.IsError, txt)
		_, _, how := approval(t, res)
		assert.Equal(t, "session", how)
		assert.Contains(t, p.asked[0].Message, "session/always would approve this and other runs of git commit with the same flags (-m)")

		// The rule "git commit -m" now holds on this connection, without asking.
		res, txt, _ = call(t, a, ToolShell, map[string]any{"command": "git commit -m two"})
		assert.False(t, res.IsError, txt)
		assert.Equal(t, 1, p.count())
		// Not for a flag that changes what it does.
		res, _, _ = call(t, a, ToolShell, map[string]any{"command": "git commit --amend -m two"})
		assert.True(t, res.IsError)
		assert.Equal(t, 2, p.count(), "--amend asks")

		// Not on another one.
		b := (&person{}).client(t, s, version)
		res, txt, _ = call(t, b, ToolShell, map[string]any{"command": "git commit -m two"})
		assert.True(t, res.IsError)
		assert.Contains(t, txt, "denied_by_user")
	})
}

// A session approval of a script covers that script as it was shown:
// another script, or the same one edited, asks again.
func TestElicitSessionCoversTheScriptShown(t *testing.T) {
	eachMode(t, func(t *testing.T, version string) {
		// npm itself is a stand-in that succeeds: what is judged is the
		// approval, not npm.
		bin := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
		t.Setenv("XDG_STATE_HOME", t.TempDir())
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		t.Setenv("CI", "true")
		ws := t.TempDir()
		engine := vtexec.NewEngine(vtexec.Config{TrustedPath: bin + ":" + plan.TrustedPath})
		t.Cleanup(func() { engine.Close() })
		s, err := New(Options{Workspace: ws, AuditLog: "off", Engine: engine})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		pkg := func(test string) {
			require.NoError(t, os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"scripts": {"test": "`+test+`", "build": "echo built"}}`), 0o644))
		}
		pkg("echo tested")
		p := &person{answers: map[string]string{"npm run test": "session", "npm run test --silent": "session"}}
		a := p.client(t, s, version)
		res, txt, _ := call(t, a, ToolShell, map[string]any{"command": "npm run test"})
		assert.False(t, res.IsError, txt)
		assert.Contains(t, p.asked[0].Message, "only while the script it runs")
		res, txt, _ = call(t, a, ToolShell, map[string]any{"command": "npm run test --silent"})
		assert.False(t, res.IsError, txt)
		assert.Equal(t, 1, p.count(), "a reporting flag does not ask")
		res, _, _ = call(t, a, ToolShell, map[string]any{"command": "npm run build"})
		assert.True(t, res.IsError)
		assert.Equal(t, 2, p.count(), "another script asks")
		pkg("echo tested; echo more")
		res, _, _ = call(t, a, ToolShell, map[string]any{"command": "npm run test --silent"})
		assert.Equal(t, 3, p.count(), "the edited script asks again")
		assert.False(t, res.IsError, "answered session again")
	})
}

func TestElicitAlwaysRecordsTheRule(t *testing.T) {
	eachMode(t, func(t *testing.T, version string) {
		s, ws := newServer(t)
		p := &person{answers: map[string]string{"git commit -mone": "always"}}
		res, txt, _ := call(t, p.client(t, s, version), ToolShell, map[string]any{"command": "git commit -m one"})
		assert.False(t, res.IsError, txt)
		_, _, how := approval(t, res)
		assert.Equal(t, "always", how)
		local, err := os.ReadFile(filepath.Join(ws, ".vtexec", "policy.local.toml"))
		require.NoError(t, err)
		assert.Contains(t, string(local), "program = '/usr/bin/git'\nsubcommand = ['commit']\ndecision = 'allow'\n")

		// A client that cannot be asked runs it now.
		res, txt, _ = call(t, connect(t, s, nil), ToolShell, map[string]any{"command": "git commit -m two"})
		assert.False(t, res.IsError, txt)
	})
}

func TestElicitNeverAlways(t *testing.T) {
	eachMode(t, func(t *testing.T, version string) {
		s, _ := newServer(t)
		p := &person{answers: map[string]string{"perl -e 1": "once"}}
		res, txt, _ := call(t, p.client(t, s, version), ToolShell, map[string]any{"command": "perl -e 1"})
		assert.False(t, res.IsError, txt)
		require.Equal(t, 1, p.count())
		schema, err := json.Marshal(p.asked[0].RequestedSchema)
		require.NoError(t, err)
		assert.Contains(t, string(schema), `"enum":["once","session","deny"]`)
		assert.Contains(t, p.asked[0].Message, "or deny; this command cannot be approved always.")
	})
}

func TestAnswerOf(t *testing.T) {
	q := vtexec.Question{}
	never := vtexec.Question{NeverAlways: true}
	accept := func(a any) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": a}}
	}
	for _, tc := range []struct {
		res  *mcp.ElicitResult
		q    vtexec.Question
		want vtexec.Answer
	}{
		{accept("once"), q, vtexec.AnswerOnce},
		{accept("session"), q, vtexec.AnswerSession},
		{accept("always"), q, vtexec.AnswerAlways},
		{accept("always"), never, vtexec.AnswerDeny},
		{accept("network"), q, vtexec.AnswerDeny},
		{accept("network"), vtexec.Question{Network: true}, vtexec.AnswerNetwork},
		{accept("deny"), q, vtexec.AnswerDeny},
		{accept("yes"), q, vtexec.AnswerDeny},
		{accept(true), q, vtexec.AnswerDeny},
		{&mcp.ElicitResult{Action: "accept"}, q, vtexec.AnswerDeny},
		{&mcp.ElicitResult{Action: "decline", Content: map[string]any{"answer": "once"}}, q, vtexec.AnswerDeny},
		{&mcp.ElicitResult{Action: "cancel"}, q, vtexec.AnswerDeny},
		{nil, q, vtexec.AnswerDeny},
	} {
		assert.Equal(t, tc.want, answerOf(tc.res, tc.q), "%+v", tc.res)
	}
	assert.Equal(t, []any{"once", "session", "always", "deny"}, answerSchema(q).Properties["answer"].Enum)
	assert.Equal(t, []any{"once", "session", "network", "deny"}, answerSchema(vtexec.Question{NeverAlways: true, Network: true}).Properties["answer"].Enum)
}

func TestElicitNoAnswerInTimeDenies(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "keep.txt"), nil, 0o644))
	s, err := New(Options{Workspace: ws, AuditLog: "off", AskTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	release := make(chan struct{})
	defer close(release)
	cs := connectVersion(t, s, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}}, "2025-11-25")
	start := time.Now()
	res, txt, _ := call(t, cs, ToolShell, map[string]any{"command": "rm keep.txt"})
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "refused: deny denied_by_user: no answer (")
	assert.FileExists(t, filepath.Join(ws, "keep.txt"))
}

// In a round trip, an answer counts only for the question this server
// showed: one sent without it, or to a question that changed, denies.
func TestRoundTripAnswerIsSealed(t *testing.T) {
	s, ws := newServer(t)
	keep := filepath.Join(ws, "keep.txt")
	require.NoError(t, os.WriteFile(keep, nil, 0o644))
	cs := connect(t, s, &mcp.ClientOptions{
		ElicitationHandler: (&person{}).handler,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	ctx := context.Background()
	args := map[string]any{"command": "rm keep.txt"}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolShell, Arguments: args})
	require.NoError(t, err)
	require.True(t, first.NeedsInput())
	q, ok := first.InputRequests[approvalKey].(*mcp.ElicitParams)
	require.True(t, ok, "%T", first.InputRequests[approvalKey])
	assert.Contains(t, q.Message, "  $ rm keep.txt\n")
	assert.FileExists(t, keep, "nothing runs before the answer")

	once := mcp.InputResponseMap{approvalKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "once"}}}
	for _, state := range []string{"", "forged", strings.Repeat("0", 64)} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolShell, Arguments: args, InputResponses: once, RequestState: state})
		require.NoError(t, err)
		assert.True(t, res.IsError)
		assert.Contains(t, text(t, res), "denied_by_user: no answer (the answer is not for this question on this connection")
		assert.FileExists(t, keep)
	}
	// The same answer to another command's question does not count either.
	other, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolShell, Arguments: map[string]any{"command": "rm -f keep.txt"},
		InputResponses: once, RequestState: first.RequestState})
	require.NoError(t, err)
	assert.True(t, other.IsError)
	assert.FileExists(t, keep)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolShell, Arguments: args, InputResponses: once, RequestState: first.RequestState})
	require.NoError(t, err)
	assert.False(t, res.IsError, text(t, res))
	assert.NoFileExists(t, keep)
}

// A connection that keeps probing is escalated: after three refusals
// with security codes its allowed commands ask its person, and one
// without elicitation is refused with session_escalated; a "session"
// answer lifts it. Other connections are not touched.
func TestConnectionThatKeepsProbingIsEscalated(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hi\n"), 0o644))
	plain := connect(t, s, nil)
	for _, probe := range []string{"cat /etc/shadow", "sudo ls", "cat ../../x"} {
		res, _, _ := call(t, plain, ToolShell, map[string]any{"command": probe})
		require.True(t, res.IsError, probe)
	}
	res, txt, _ := call(t, plain, ToolShell, map[string]any{"command": "cat a.txt"})
	assert.True(t, res.IsError)
	assert.Contains(t, txt, "session_escalated")
	other := connect(t, s, nil)
	res, txt, _ = call(t, other, ToolShell, map[string]any{"command": "cat a.txt"})
	assert.False(t, res.IsError, txt)

	p := &person{answers: map[string]string{"cat a.txt": "session"}}
	asking := p.client(t, s, "")
	for _, probe := range []string{"cat /etc/shadow", "sudo ls", "cat ../../x"} {
		call(t, asking, ToolShell, map[string]any{"command": probe})
	}
	res, txt, _ = call(t, asking, ToolShell, map[string]any{"command": "cat a.txt"})
	assert.False(t, res.IsError, txt)
	require.Equal(t, 1, p.count())
	assert.Contains(t, p.asked[0].Message, "refusals that signal probing")
	res, txt, _ = call(t, asking, ToolShell, map[string]any{"command": "cat a.txt"})
	assert.False(t, res.IsError, txt)
	assert.Equal(t, 1, p.count(), "the session answer reset the escalation")
}
