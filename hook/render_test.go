package hook

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The events as each harness sent them (harnesses.md, real runs).
const (
	geminiShellEvent = `{"session_id":"2226e335-c07f-411c-81e8-3402355ed092","transcript_path":"/t/home/.gemini/tmp/work/chats/session-2026-11-23T12-18-2226e335.jsonl","cwd":"/t/work","hook_event_name":"BeforeTool","timestamp":"2026-11-23T12:18:28.968Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`
	geminiMCPEvent   = `{"session_id":"s1","transcript_path":"/t/x.jsonl","cwd":"/t/work","hook_event_name":"BeforeTool","timestamp":"2026-11-23T12:18:28.968Z","tool_name":"mcp_testshell_shell","tool_input":{"command":"ls"},"mcp_context":{"server_name":"testshell","tool_name":"shell","command":"/t/testmcp","args":["/t/mcp-calls.log"]}}`
	codexEvent       = `{"session_id":"019a-codex","turn_id":"t-1","transcript_path":"/t/home/sessions/rollout-1.jsonl","cwd":"/t/work","hook_event_name":"PreToolUse","model":"mock-model","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"call_2"}`
	claudeEvent      = `{"session_id":"c-1","transcript_path":"/t/home/.claude/projects/-t-work/c-1.jsonl","cwd":"/t/work","prompt_id":"p-1","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","description":"list"},"tool_use_id":"toolu_02"}`
)

func TestParseEventRecognisesEachHarness(t *testing.T) {
	for _, c := range []struct {
		event   string
		want    Harness
		session string
		tool    string
	}{
		{geminiShellEvent, Gemini, "2226e335-c07f-411c-81e8-3402355ed092", "run_shell_command"},
		{geminiMCPEvent, Gemini, "s1", "mcp_testshell_shell"},
		{codexEvent, Codex, "019a-codex", "Bash"},
		{claudeEvent, Claude, "c-1", "Bash"},
	} {
		ev, err := ParseEvent(Auto, []byte(c.event))
		require.NoError(t, err)
		assert.Equal(t, c.want, ev.Harness)
		assert.Equal(t, c.session, ev.SessionID)
		assert.Equal(t, "/t/work", ev.Cwd)
		assert.Equal(t, c.tool, ev.ToolName)
		cmd, ok := ev.str("command")
		assert.True(t, ok)
		assert.Equal(t, "ls", cmd)

		// Named explicitly, the same harness parses the same.
		named, err := ParseEvent(c.want, []byte(c.event))
		require.NoError(t, err)
		assert.Equal(t, ev, named)
	}
	// Claude Code's extra fields stay in the input, for a rewrite to keep.
	ev, err := ParseEvent(Claude, []byte(claudeEvent))
	require.NoError(t, err)
	assert.JSONEq(t, `"list"`, string(ev.ToolInput["description"]))
}

func TestParseEventRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		h     Harness
		event string
	}{
		"not JSON":             {Auto, `ls`},
		"post-tool event":      {Auto, `{"hook_event_name":"AfterTool","tool_name":"x"}`},
		"no tool":              {Auto, `{"hook_event_name":"PreToolUse"}`},
		"Gemini event, Claude": {Claude, geminiShellEvent},
		"Claude event, Gemini": {Gemini, claudeEvent},
		"unknown harness":      {Harness("cursor"), claudeEvent},
	} {
		_, err := ParseEvent(c.h, []byte(c.event))
		assert.Error(t, err, name)
	}
}

var (
	refused   = Verdict{Kind: Deny, Code: "outside_workspace", Reason: `"/etc/passwd": path is outside the workspace`, Hint: "use a path inside the workspace"}
	asked     = Verdict{Kind: Ask, Code: "needs_person", Reason: "tar writes an archive", Hint: "vtexec policy allow -- tar"}
	rewritten = Verdict{Kind: Rewrite, Input: map[string]json.RawMessage{"command": json.RawMessage(`"'/bin/vtexec' 'run'"`), "dir_path": json.RawMessage(`"sub"`)}}
)

const (
	refusedMsg = `vtexec refused (outside_workspace): \"/etc/passwd\": path is outside the workspace\nHint: use a path inside the workspace`
	askedMsg   = `vtexec asks a person (needs_person): tar writes an archive\nHint: vtexec policy allow -- tar`
)

func TestRenderGemini(t *testing.T) {
	for _, c := range []struct {
		v    Verdict
		want string
	}{
		{refused, `{"decision":"deny","reason":"` + refusedMsg + `"}`},
		{Verdict{Kind: Allow}, `{"decision":"allow"}`},
		{Verdict{Kind: Pass}, `{"decision":"allow"}`},
		{rewritten, `{"decision":"allow","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"'/bin/vtexec' 'run'","dir_path":"sub"}}}`},
		// Never an ask: Gemini CLI waits forever for it in headless mode.
		{asked, `{"decision":"deny","reason":"vtexec refused (needs_approval): tar writes an archive\nHint: vtexec policy allow -- tar"}`},
	} {
		assert.JSONEq(t, c.want, string(Render(Gemini, c.v)))
	}
}

func TestRenderClaude(t *testing.T) {
	for _, c := range []struct {
		v    Verdict
		want string
	}{
		{refused, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + refusedMsg + `"}}`},
		{Verdict{Kind: Allow}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`},
		{Verdict{Kind: Pass}, `{}`},
		{asked, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"` + askedMsg + `"}}`},
		{rewritten, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"'/bin/vtexec' 'run'","dir_path":"sub"}}}`},
	} {
		assert.JSONEq(t, c.want, string(Render(Claude, c.v)))
	}
}

func TestRenderCodex(t *testing.T) {
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"`+refusedMsg+`"}}`,
		string(Render(Codex, refused)))
	// Codex has no ask.
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"vtexec refused (needs_approval): tar writes an archive\nHint: vtexec policy allow -- tar"}}`,
		string(Render(Codex, asked)))
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"'/bin/vtexec' 'run'","dir_path":"sub"}}}`,
		string(Render(Codex, rewritten)))
	assert.JSONEq(t, `{}`, string(Render(Codex, Verdict{Kind: Pass})))
}

func TestMessageIsOneLineEach(t *testing.T) {
	v := Verdict{Kind: Deny, Code: "c", Reason: "line one\nline two", Hint: "h1\n\th2"}
	assert.Equal(t, "vtexec refused (c): line one line two\nHint: h1 h2", v.Message())
}
