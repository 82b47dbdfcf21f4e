package vtexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/cwdtrack"
)

// hermetic points the config and state directories at fresh temp dirs.
func hermetic(t testing.TB) (config, state string) {
	t.Helper()
	config, state = t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("XDG_STATE_HOME", state)
	return config, state
}

type fakeApprover struct {
	answer    Answer
	err       error
	questions []Question
}

func (f *fakeApprover) Approve(_ context.Context, q Question) (Answer, error) {
	f.questions = append(f.questions, q)
	return f.answer, f.err
}

// tar is not allowlisted, so it asks; it is in every Debian base system
// and leaves a file behind that shows it ran.
const askCmd = "tar -cf out.tar src"

func run(t *testing.T, req Request) Result {
	t.Helper()
	res, err := testEngine.Run(context.Background(), req)
	require.NoError(t, err)
	return res
}

func TestAskWithoutApproverNeedsApproval(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	res := run(t, Request{Command: askCmd, Workspace: dir})
	assert.Equal(t, "deny", string(res.Decision.Decision))
	assert.Equal(t, CodeNeedsApproval, res.Decision.Code)
	// tar has no subcommands: its approval is for these exact
	// arguments, and the hint's line records exactly that.
	assert.Contains(t, res.Decision.Hint, "run it in a terminal to be asked")
	assert.Contains(t, res.Decision.Hint, "vtexec policy allow -- tar -cf out.tar src")
	assert.NotContains(t, res.Decision.Hint, "allowlisted programs", "no allowlist dump")
	assert.NoFileExists(t, filepath.Join(dir, "out.tar"))

	d, err := testEngine.Check(context.Background(), Request{Command: askCmd, Workspace: dir})
	require.NoError(t, err)
	assert.Equal(t, "ask", string(d.Decision), "check reports ask, it does not refuse")
	// The refusal keeps check's own hint, the way that needs no person.
	require.NotEmpty(t, d.Hint)
	assert.Contains(t, res.Decision.Hint, d.Hint)
	require.Len(t, d.Asks, 1)
	assert.True(t, strings.HasSuffix(d.Asks[0].Rule, "tar -cf out.tar src"), d.Asks[0].Rule)
}

func TestAnswerOnceRunsAndForgets(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	ap := &fakeApprover{answer: AnswerOnce}
	res := run(t, Request{Command: askCmd + " && cat src/a\\ b.txt", Workspace: dir, Approver: ap, Session: "s1"})
	assert.Equal(t, "allow", string(res.Decision.Decision))
	assert.Equal(t, "once", res.Decision.Approval)
	assert.FileExists(t, filepath.Join(dir, "out.tar"))
	require.Len(t, ap.questions, 1)
	q := ap.questions[0]
	assert.Len(t, q.Commands, 2, "the question shows every part")
	assert.Equal(t, dir, q.Cwd)

	res = run(t, Request{Command: askCmd, Workspace: dir, Session: "s1"})
	assert.Equal(t, CodeNeedsApproval, res.Decision.Code, "once is forgotten")
}

func TestAnswerSessionIsRememberedForThatSessionOnly(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	res := run(t, Request{Command: askCmd, Workspace: dir, Approver: &fakeApprover{answer: AnswerSession}, Session: "s1"})
	require.Equal(t, "allow", string(res.Decision.Decision))
	require.NoError(t, os.Remove(filepath.Join(dir, "out.tar")))

	res = run(t, Request{Command: askCmd, Workspace: dir, Session: "s1"})
	assert.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	assert.Equal(t, "session s1", res.Decision.RuleFile)
	assert.FileExists(t, filepath.Join(dir, "out.tar"))

	res = run(t, Request{Command: askCmd, Workspace: dir, Session: "s2"})
	assert.Equal(t, CodeNeedsApproval, res.Decision.Code)
	res = run(t, Request{Command: askCmd, Workspace: dir})
	assert.Equal(t, CodeNeedsApproval, res.Decision.Code)
}

func TestAnswerAlwaysPersists(t *testing.T) {
	_, state := hermetic(t)
	dir := testDir(t)
	res := run(t, Request{Command: "tar --version", Workspace: dir, Approver: &fakeApprover{answer: AnswerAlways}})
	require.Equal(t, "allow", string(res.Decision.Decision))

	d, err := testEngine.Check(context.Background(), Request{Command: "tar --version", Workspace: dir})
	require.NoError(t, err)
	assert.Equal(t, "allow", string(d.Decision))
	assert.Contains(t, d.RuleFile, filepath.Join(".vtexec", "policy.local.toml"))
	d, _ = testEngine.Check(context.Background(), Request{Command: "tar -cf x.tar src", Workspace: dir})
	assert.Equal(t, "ask", string(d.Decision), "tar --version approves tar --version only")

	data, err := os.ReadFile(filepath.Join(dir, ".vtexec", "policy.local.toml"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "approved always")
	gi, err := os.ReadFile(filepath.Join(dir, ".vtexec", ".gitignore"))
	require.NoError(t, err)
	assert.Contains(t, string(gi), "policy.local.toml")
	assert.FileExists(t, filepath.Join(state, "vtexec", "trusted.json"))

	// Editing the file by hand makes its allow rules untrusted again.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".vtexec", "policy.local.toml"), append(data, '\n'), 0o644))
	d, _ = testEngine.Check(context.Background(), Request{Command: "tar --version", Workspace: dir})
	assert.Equal(t, "ask", string(d.Decision))
}

func TestAnswerDenyAndErrorsRefuse(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	for _, ap := range []*fakeApprover{{answer: AnswerDeny}, {answer: ""}, {answer: AnswerOnce, err: errors.New("timeout")}} {
		res := run(t, Request{Command: askCmd, Workspace: dir, Approver: ap})
		assert.Equal(t, "deny", string(res.Decision.Decision))
		assert.Equal(t, ExitRefused, res.ExitCode)
		assert.NoFileExists(t, filepath.Join(dir, "out.tar"))
	}
}

func TestInlineCodeNeverAlways(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	ap := &fakeApprover{answer: AnswerSession}
	res := run(t, Request{Command: "perl -e 'print 1'", Workspace: dir, Approver: ap, Session: "p"})
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	require.Len(t, ap.questions, 1)
	assert.True(t, ap.questions[0].NeverAlways)
	assert.NotContains(t, ap.questions[0].Text(), "[a]lways")

	_, err := testEngine.Run(context.Background(), Request{Command: "perl -e 'print 2'", Workspace: dir, Approver: &fakeApprover{answer: AnswerAlways}})
	assert.Error(t, err, "always is not an answer to this question")
	assert.NoFileExists(t, filepath.Join(dir, ".vtexec", "policy.local.toml"))
}

func TestSessionCwdAndMarker(t *testing.T) {
	_, state := hermetic(t)
	dir := testDir(t)
	res := run(t, Request{Command: "cd src", Workspace: dir, Session: "w"})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	res = run(t, Request{Command: "ls", Workspace: dir, Session: "w"})
	assert.Equal(t, "a b.txt\n", res.Stdout)
	res = run(t, Request{Command: "cd ../..", Workspace: dir, Session: "w"})
	assert.Equal(t, "outside_workspace", res.Decision.Code)
	res = run(t, Request{Command: "pwd", Workspace: dir, Session: "w"})
	assert.Equal(t, filepath.Join(dir, "src")+"\n", res.Stdout)

	sess, err := cwdtrack.Store{Dir: filepath.Join(state, "vtexec", "sessions")}.Update("w", dir, func(*cwdtrack.Session) error { return nil })
	require.NoError(t, err)
	body, m, ok := cwdtrack.Parse(sess.Token, res.Stdout+res.Marker)
	require.True(t, ok)
	assert.Equal(t, res.Stdout, body)
	assert.Equal(t, filepath.Join(dir, "src"), m.Cwd)
	assert.NotContains(t, res.Marker, sess.Token)

	// The command never sees the token: not in its environment, and the
	// state directory is outside the workspace.
	res = run(t, Request{Command: "printenv", Workspace: dir, Session: "w"})
	assert.NotContains(t, res.Stdout, sess.Token)
	res = run(t, Request{Command: "cat " + filepath.Join(state, "vtexec", "sessions", "w.json"), Workspace: dir, Session: "w"})
	assert.Equal(t, "outside_workspace", res.Decision.Code)
}

func TestStateDirInsideWorkspaceRefused(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	_, err := testEngine.Run(context.Background(), Request{Command: "ls", Workspace: dir, Session: "x"})
	var re *RequestError
	require.ErrorAs(t, err, &re)
}

func TestBadPolicyRefusesToRun(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".vtexec", "policy.toml"), []byte("[[rule]]\nprogram = \"ls\"\ndecisoin = \"deny\"\n"), 0o644))
	_, err := testEngine.Run(context.Background(), Request{Command: "ls", Workspace: dir})
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "bad_policy", re.Code)
	assert.Contains(t, re.Reason, "policy.toml:3")
}

func TestDisplayEscapes(t *testing.T) {
	cases := map[string]string{
		"plain":              "plain",
		"a b":                "'a b'",
		"it's":               `'it'\''s'`,
		"x\x1b[2Jy":          `$'x\x1b[2Jy'`,
		"evil\u202etxt.exe":  `$'evil\u202etxt.exe'`,
		"zero\u200bwidth":    `$'zero\u200bwidth'`,
		"line\nbreak":        `$'line\x0abreak'`,
		"bad\xffutf8":        `$'bad\xffutf8'`,
		"":                   "''",
		"ünïcode":            "'ünïcode'",
		"--flag=value/x.txt": "--flag=value/x.txt",
		// Invisible or blank-looking: variation selectors, a combining
		// grapheme joiner, Hangul and braille blanks, a no-break space.
		"setup.py\ufe0f": `$'setup.py\ufe0f'`,
		"a\U000e0100b":   `$'a\U000e0100b'`,
		"a\u034fb":       `$'a\u034fb'`,
		"a\u3164b":       `$'a\u3164b'`,
		"a\u115fb":       `$'a\u115fb'`,
		"a\u2800b":       `$'a\u2800b'`,
		"a\u00a0b":       `$'a\u00a0b'`,
	}
	for in, want := range cases {
		assert.Equal(t, want, DisplayWord(in), "%q", in)
	}
	q := Question{Command: "x", Cwd: "/ws", Commands: []Command{{Argv: []string{"rm", "a\u202eb"}}}}
	assert.NotContains(t, q.Text(), "\u202e")
}

// A person approving several commands sees how they are joined, which
// decides which of them run.
func TestQuestionShowsHowCommandsAreJoined(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	texts := map[string]string{}
	for _, cmd := range []string{"test -f x && " + askCmd, "test -f x || " + askCmd} {
		f := &fakeApprover{answer: AnswerDeny}
		run(t, Request{Command: cmd, Workspace: dir, Approver: f})
		require.Len(t, f.questions, 1)
		texts[cmd] = f.questions[0].Text()
		assert.Contains(t, texts[cmd], "    "+cmd+"\n")
	}
	assert.NotEqual(t, texts["test -f x && "+askCmd], texts["test -f x || "+askCmd])

	f := &fakeApprover{answer: AnswerDeny}
	run(t, Request{Command: askCmd, Workspace: dir, Approver: f})
	require.Len(t, f.questions, 1)
	assert.NotContains(t, f.questions[0].Text(), "as sent", "one command needs no second rendering")

	// A group's redirect shows on no command line.
	f = &fakeApprover{answer: AnswerDeny}
	run(t, Request{Command: "{ " + askCmd + "; } > log.txt", Workspace: dir, Approver: f})
	require.Len(t, f.questions, 1)
	assert.Contains(t, f.questions[0].Text(), "    { "+askCmd+"; } > log.txt\n")
}
