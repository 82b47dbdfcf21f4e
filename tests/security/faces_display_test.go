//go:build !windows

package security

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/hook"
	"github.com/vtexec/vtexec/serve"
)

// trickName holds what a terminal or a harness window would act on
// rather than show: a screen clear, a clipboard write, a title change, a
// right-to-left override, a zero-width space, a carriage return.
const trickName = "/etc/x\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;t\x07\u202etxt.exe\u200b\rok"

// shownRaw returns the characters of s a terminal would not show as
// marks of their own (newlines and tabs aside), and whether there are
// escape sequences.
func shownRaw(s string) []rune {
	var bad []rune
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.In(r, unicode.Cf, unicode.Zs) && r != ' ' {
			bad = append(bad, r)
		}
	}
	return bad
}

// Every face shows a name full of control, bidi and invisible characters
// escaped, in reasons, hints and questions; a command's output on a
// terminal too.
func TestEveryFaceEscapesWhatItShows(t *testing.T) {
	ws := fixture(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	name := strings.TrimPrefix(trickName, "/etc/")
	// A refusal whose reason names an unknown flag, one outside the
	// workspace, and an ask whose rule names a file.
	commands := []string{"ls --'" + name + "'", "cat '" + trickName + "'", "rm '" + name + "'"}

	// The library's decision keeps the bytes (JSON carries them safely).
	d, err := testEngine.Check(context.Background(), vtexec.Request{Command: commands[0], Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	require.Contains(t, d.Reason, "\x1b", "the test needs a reason that holds the name as it is")

	bin := builtVtexec(t)
	s, err := serve.New(serve.Options{Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	defer func() { cs.Close(); <-done }()

	for _, command := range commands {
		// The hook's message, which the harness shows beside its question,
		// as the harness decodes the answer.
		for _, h := range []hook.Harness{hook.Claude, hook.Codex, hook.Gemini} {
			tool := map[hook.Harness]string{hook.Claude: "Bash", hook.Codex: "Bash", hook.Gemini: "run_shell_command"}[h]
			v := hook.Decide(context.Background(), hookEvent(h, ws, tool, map[string]any{"command": command}),
				hook.Options{Engine: closedAfter(t, vtexec.NewEngine(vtexec.Config{})), Getenv: func(string) string { return "" }, Workspace: ws})
			require.NotEqual(t, hook.Allow, v.Kind, command)
			assert.Empty(t, shownRaw(v.Message()), "%s %s: %q", h, command, v.Message())
			var answer any
			require.NoError(t, json.Unmarshal(hook.Render(h, v), &answer))
			assert.Empty(t, shownRaw(strings.Join(stringsIn(answer), "\n")), "%s %s renders raw characters", h, command)
		}

		// The CLI's plain text: check, run and policy explain.
		for _, args := range [][]string{
			{"check", "--workspace", ws, "--", command},
			{"run", "--workspace", ws, "--no-prompt", "--audit", "off", "--", command},
			{"policy", "explain", "--workspace", ws, "--", command},
		} {
			cmd := exec.Command(bin, args...)
			cmd.Env = os.Environ()
			out, _ := cmd.CombinedOutput()
			assert.Empty(t, shownRaw(string(out)), "%v %s: %q", args[:1], command, out)
		}

		// MCP: the text content of the answer.
		for _, tool := range []string{serve.ToolShell, serve.ToolCheck} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"command": command}})
			require.NoError(t, err)
			text := res.Content[0].(*mcp.TextContent).Text
			assert.Empty(t, shownRaw(text), "%s %s: %q", tool, command, text)
		}
	}
}

func stringsIn(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case map[string]any:
		var out []string
		for _, x := range v {
			out = append(out, stringsIn(x)...)
		}
		return out
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, stringsIn(x)...)
		}
		return out
	}
	return nil
}

// A command's own output reaches a terminal escaped (colours kept), and
// a pipe byte for byte.
func TestRunOutputOnATerminalIsShownNotObeyed(t *testing.T) {
	ws := fixture(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	body := "\x1b[1;32mok\x1b[0m\n\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\u202eexe\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "out.txt"), []byte(body), 0o644))
	bin := builtVtexec(t)
	args := []string{"run", "--workspace", ws, "--audit", "off", "--", "cat out.txt"}

	piped, err := exec.Command(bin, args...).Output()
	require.NoError(t, err)
	assert.Equal(t, body, string(piped), "a pipe gets the exact bytes")

	cmd := exec.Command(bin, args...)
	tty, err := pty.Start(cmd)
	require.NoError(t, err)
	defer tty.Close()
	var shown bytes.Buffer
	readDone := make(chan struct{})
	go func() { io.Copy(&shown, tty); close(readDone) }()
	require.NoError(t, cmd.Wait())
	select {
	case <-readDone:
	case <-time.After(5 * time.Second):
	}
	out := shown.String()
	assert.Contains(t, out, "\x1b[1;32mok\x1b[0m", "colours stay")
	assert.NotContains(t, out, "\x1b[2J", "a screen clear is shown, not obeyed")
	assert.NotContains(t, out, "\x1b]52", "a clipboard write is shown, not obeyed")
	assert.NotContains(t, out, "\u202e")
	assert.Contains(t, out, `\u001b]52;c;`)
}
