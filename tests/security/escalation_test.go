package security

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
)

// probes are refusals with security codes: a path outside, a protected
// name, a forbidden program, a forbidden flag.
var probes = []string{"cat ../ws2/secret.txt", "sudo ls", "sort --compress-program=cat file.txt", "rm .git/config", "cat /etc/shadow", "ls ~/.ssh"}

// ordinary are refusals of forms vtexec does not run, which agents type
// in good faith: they never escalate a session.
var ordinary = []string{"export FOO=1", "source scripts/run.sh", "sleep 1 &", "$(echo ls) -l", "eval ls", "f() { ls; }; f"}

func escalationRequest(ws, audit, cmd string) vtexec.Request {
	return vtexec.Request{Command: cmd, Workspace: ws, Session: "agent-1", AuditLog: audit}
}

// A session that keeps probing is stopped: after escalate_after (3)
// refusals with security codes, a command that was allowed needs a
// person, with a code of its own, until a person resets the session.
func TestSessionThatKeepsProbingIsEscalated(t *testing.T) {
	ws := fixture(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	e := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { e.Close() })
	ctx := context.Background()
	check := func(cmd string) vtexec.Decision {
		d, err := e.Check(ctx, escalationRequest(ws, audit, cmd))
		require.NoError(t, err, cmd)
		return d
	}
	require.Equal(t, "allow", string(check("cat README.md").Decision))
	for _, cmd := range ordinary {
		d := check(cmd)
		require.NotEqual(t, "allow", string(d.Decision), cmd)
	}
	assert.Equal(t, "allow", string(check("cat README.md").Decision), "ordinary refusals do not escalate")

	for i, cmd := range probes[:3] {
		d := check(cmd)
		require.Equal(t, "deny", string(d.Decision), cmd)
		var warned bool
		for _, w := range d.Warnings {
			warned = warned || w.Code == vtexec.CodeSessionEscalated
		}
		assert.Equal(t, i == 2, warned, "%s: the third probe says the session is escalated", cmd)
	}
	d := check("cat README.md")
	assert.Equal(t, "ask", string(d.Decision), "an allowed command needs a person in an escalated session")
	assert.Equal(t, vtexec.CodeSessionEscalated, d.Code)
	assert.True(t, d.NeverAlways)

	res, err := e.Run(ctx, escalationRequest(ws, audit, "cat README.md"))
	require.NoError(t, err)
	assert.Equal(t, vtexec.ExitRefused, res.ExitCode, "with no person to ask, nothing runs")
	assert.Equal(t, vtexec.CodeSessionEscalated, res.Decision.Code)
	assert.Empty(t, res.Stdout)

	// Another session is not escalated.
	other := escalationRequest(ws, audit, "cat README.md")
	other.Session = "agent-2"
	d, err = e.Check(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, "allow", string(d.Decision))

	require.NoError(t, e.ResetSession(escalationRequest(ws, audit, "")))
	assert.Equal(t, "allow", string(check("cat README.md").Decision), "back to normal after a reset")

	// A person's "session" answer to the escalated question resets it too.
	for _, cmd := range probes[3:] {
		check(cmd)
	}
	require.Equal(t, vtexec.CodeSessionEscalated, check("cat README.md").Code)
	req := escalationRequest(ws, audit, "cat file.txt")
	req.Approver = answerWith(vtexec.AnswerSession)
	res, err = e.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "one\ntwo\n", res.Stdout)
	assert.Equal(t, "allow", string(check("cat README.md").Decision), "a session answer resets the escalation")

	log, err := os.ReadFile(audit)
	require.NoError(t, err)
	escalations, resets := 0, 0
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, `"kind":"session"`) {
			escalations += strings.Count(line, `"code":"session_escalated"`)
			resets += strings.Count(line, `"code":"session_reset"`)
		}
	}
	assert.Equal(t, 2, escalations, "the audit log records each escalation")
	assert.Equal(t, 2, resets, "and each reset")
}

// The user's policy sets escalate_after: 0 turns escalation off (the
// same probes then leave the session as it was), and a project's
// untrusted policy may only lower it.
func TestEscalateAfterIsThePolicys(t *testing.T) {
	ctx := context.Background()
	run := func(user, project string, probeCount int) string {
		ws := fixture(t)
		if user != "" {
			dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "policy.toml"), []byte(user), 0o644))
		}
		if project != "" {
			require.NoError(t, os.WriteFile(filepath.Join(ws, ".vtexec", "policy.toml"), []byte(project), 0o644))
		}
		e := vtexec.NewEngine(vtexec.Config{})
		t.Cleanup(func() { e.Close() })
		for _, cmd := range probes[:probeCount] {
			_, err := e.Check(ctx, escalationRequest(ws, "off", cmd))
			require.NoError(t, err)
		}
		d, err := e.Check(ctx, escalationRequest(ws, "off", "cat README.md"))
		require.NoError(t, err)
		return string(d.Decision)
	}
	assert.Equal(t, "ask", run("", "", 3))
	assert.Equal(t, "allow", run("", "", 2))
	assert.Equal(t, "allow", run("escalate_after = 0\n", "", 6), "off: the probes leave the session alone")
	assert.Equal(t, "allow", run("escalate_after = 5\n", "", 4))
	assert.Equal(t, "ask", run("escalate_after = 5\n", "", 5))
	assert.Equal(t, "ask", run("", "escalate_after = 1\n", 1), "an untrusted project may make it sooner")
	assert.Equal(t, "ask", run("", "escalate_after = 0\n", 3), "an untrusted project may not turn it off")
}

// pythonTyped and nodeTyped are what agents type on Python and Node
// projects, refused or not.
var pythonTyped = []string{
	"ls", "cat pyproject.toml", "python3 --version", "python3 -m pytest -q", "pytest -q tests/", "pytest -x -k test_parse",
	".venv/bin/python -m pytest -q", "source .venv/bin/activate && pytest", "PYTHONPATH=src python3 -m pytest",
	"pip install -e .", "pip install -r requirements.txt", "python3 -m venv .venv", "flake8 src", "mypy src",
	"python3 -c 'import sys; print(sys.version)'", "grep -rn 'def main' src", "find . -name '*.py' | head",
	"export PYTHONDONTWRITEBYTECODE=1", "python3 setup.py --version", "cat requirements.txt | wc -l",
	"rm -rf .pytest_cache", "git status", "git diff --stat", "make test", "tox -q",
}

var nodeTyped = []string{
	"cat package.json", "npm test", "npm test --silent", "npm run build", "npm run lint -- --fix", "npx tsc -p .",
	"npx tsc --noEmit", "node --test", "node --version", "npm --version", "npm pkg get version", "npm ci",
	"npm install", "npm install --save-dev typescript", "npx prettier --check .", "npx eslint src",
	"ls node_modules/.bin", "cat tsconfig.json", "grep -rn TODO src", "rm -rf dist", "npm run test -- --coverage",
	"echo $NODE_ENV", "NODE_ENV=test npm test", "git log --oneline -5",
}

// What agents type on real projects never escalates a session.
func TestAgentTypedCommandsNeverEscalate(t *testing.T) {
	ws := fixture(t)
	e := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, standinPrograms...)})
	t.Cleanup(func() { e.Close() })
	refused, probing := 0, 0
	for _, cmd := range slices.Concat(agentTyped, pythonTyped, nodeTyped, ordinary) {
		d, err := e.Check(context.Background(), escalationRequest(ws, "off", cmd))
		require.NoError(t, err, cmd)
		if d.Decision == vtexec.VerdictDeny {
			refused++
			if codes.IsSecurity(d.Code) {
				probing++
				t.Logf("a security refusal: %s: %s %s", cmd, d.Code, d.Reason)
			}
		}
	}
	t.Logf("%d refused, %d of them with security codes", refused, probing)
	d, err := e.Check(context.Background(), escalationRequest(ws, "off", "cat README.md"))
	require.NoError(t, err)
	assert.Equal(t, "allow", string(d.Decision), d.Reason)
}
