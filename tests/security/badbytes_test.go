//go:build !windows

package security

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// A NUL byte in a command string is refused, never dropped: dropping it
// would run another command than the one sent ("cat\x00 x" is not
// "cat x"), and bash would not run it either.
func TestNULInCommandIsBadRequest(t *testing.T) {
	ws := fixture(t)
	for _, cmd := range []string{"cat\x00 README.md", "ls\x00", "echo 'a\x00b'", "cat README.md # \x00", "\x00",
		// bash keeps a CR before LF in the word; the parser would drop it.
		"echo a\r\necho b", "echo 'x\r\ny'"} {
		_, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
		var re *vtexec.RequestError
		require.True(t, errors.As(err, &re), "%q: %v", cmd, err)
		assert.Equal(t, "bad_request", re.Code, "%q", cmd)
		assert.NotEmpty(t, re.Hint)
	}
}

// Bytes that decoding would replace with U+FFFD (bytes that are not
// UTF-8, an escaped lone surrogate) are refused on every face that reads
// JSON, never checked as the replaced command: the verdict would be
// about another command than the one the harness runs.
func TestEveryJSONFaceRefusesBytesItWouldRewrite(t *testing.T) {
	ws := fixture(t)
	bad := []string{"{\"cmd\":\"cat \xff\"}", `{"cmd":"cat \ud800"}`, `{"cmd":"cat \udc00\ud800"}`}

	// check --jsonl: one bad_request a line, the stream goes on.
	cmd := exec.Command(builtVtexec(t), "check", "--jsonl", "--workspace", ws)
	cmd.Stdin = strings.NewReader(strings.Join(append(bad, `{"cmd":"cat README.md \ud83d\ude00"}`), "\n") + "\n")
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(bad)+1)
	for i := range bad {
		assert.Contains(t, lines[i], `"code":"bad_request"`, bad[i])
		assert.NotContains(t, lines[i], "\ufffd", bad[i])
	}
	assert.Contains(t, lines[len(bad)], "README.md 😀", "a surrogate pair is one character")

	// vtexec hook: the event is refused (exit 2 blocks the tool call).
	for _, cmdline := range []string{"cat \xff", `cat \ud800`} {
		event := `{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"` + ws + `","tool_input":{"command":"` + cmdline + `"}}`
		hook := exec.Command(builtVtexec(t), "hook", "--harness", "claude", "--workspace", ws)
		hook.Stdin = strings.NewReader(event)
		var stderr strings.Builder
		hook.Stderr = &stderr
		out, err := hook.Output()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%q: %v %s", cmdline, err, out)
		assert.Equal(t, 2, ee.ExitCode())
		assert.Contains(t, stderr.String(), "bad_request")
		assert.NotContains(t, string(out), "allow")
	}
}
