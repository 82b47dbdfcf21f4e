package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// asksInAProject are commands that ask in an ordinary project, in the
// forms agents type; those whose program a machine lacks are refused
// instead, and left out.
var asksInAProject = []string{
	"tar -cf out.tar README.md", "tar -tf out.tar", "rm src/a.txt", "rm -r build",
	"make test", "make -s build", "make", "git commit -m 'first'", "git commit --amend -m x", "git reset --hard",
	"npm run test", "npm test --silent", "npm install", "npm install left-pad", "npx prettier --check src",
	"python3 -m pytest -q", "python3 tools/gen.py", "pip install -e .", "go test ./...", "cargo test -q",
	"sort -o out.txt README.md", "xz -k README.md", "gzip -k README.md",
}

// Every needs_approval answer that a rule can lift carries the `vtexec
// policy allow` line that lifts it: run as a person would type it, the
// command then passes.
func TestNeedsApprovalHintMakesItPass(t *testing.T) {
	ws := cliWorkspace(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "build"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "Makefile"), []byte("test:\n\ttrue\nbuild:\n\ttrue\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"scripts": {"test": "true"}}`), 0o644))
	git := exec.Command("git", "init", "-q")
	git.Dir = ws
	require.NoError(t, git.Run())
	lifted, checked := 0, 0
	for _, cmd := range asksInAProject {
		code, out, _ := cli(t, "", "check", "--workspace", ws, "--json", "--", cmd)
		if code != exitAsk {
			continue // refused or allowed here (a program this machine lacks)
		}
		var d struct {
			Decision, Code, Hint string
			NeverAlways          bool `json:"never_always"`
		}
		_, out, _ = cli(t, "", "run", "--workspace", ws, "--no-prompt", "--json", "--", cmd)
		var res struct {
			Decision *struct{ Decision, Code, Hint string }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &res), out)
		d.Decision, d.Code, d.Hint = res.Decision.Decision, res.Decision.Code, res.Decision.Hint
		require.Equal(t, "needs_approval", d.Code, "%s: %s", cmd, out)
		checked++
		_, line, ok := strings.Cut(d.Hint, "approve it ahead: ")
		if !ok {
			assert.Contains(t, d.Hint, "cannot be approved always", "%s: a hint without a policy allow line must say why: %s", cmd, d.Hint)
			continue
		}
		for _, one := range strings.Split(strings.SplitN(line, "; or: ", 2)[0], "; ") {
			words := shellWords(t, one)
			require.GreaterOrEqual(t, len(words), 3, one)
			require.Equal(t, []string{"vtexec", "policy", "allow"}, words[:3], one)
			code, out, errOut := cli(t, "", append([]string{"policy", "allow", "--workspace", ws}, words[3:]...)...)
			require.Equal(t, 0, code, "%s: %s%s", one, out, errOut)
		}
		code, _, _ = cli(t, "", "check", "--workspace", ws, "--", cmd)
		if assert.Equal(t, exitAllow, code, "%s: after %q", cmd, line) {
			lifted++
		}
	}
	t.Logf("%d commands asked; %d lifted by their hint's line", checked, lifted)
	assert.GreaterOrEqual(t, checked, 6, "enough of the list asks on this machine")
}

// shellWords splits a line as a shell would.
func shellWords(t *testing.T, line string) []string {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	require.NoError(t, err, line)
	var words []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			s, err := wordText(w)
			require.NoError(t, err, line)
			words = append(words, s)
			return false
		}
		return true
	})
	return words
}

func wordText(w *syntax.Word) (string, error) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String(), nil
}
