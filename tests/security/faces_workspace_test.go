package security

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/hook"
)

// hookEvent is a pre-tool event of h whose cwd is cwd (the directory a
// harness reports, which for Codex is the model's workdir argument).
func hookEvent(h hook.Harness, cwd, tool string, input map[string]any) hook.Event {
	in := map[string]json.RawMessage{}
	for k, v := range input {
		b, _ := json.Marshal(v)
		in[k] = b
	}
	return hook.Event{Harness: h, SessionID: "sess-faces", Cwd: cwd, ToolName: tool, ToolInput: in}
}

// The workspace of a hook comes from what the person set (a pinned
// --workspace, the harness's project variable, Codex's own working
// directory for the hook), never from the event's cwd or a directory
// argument, which the model sets. A cwd outside the workspace is refused.
func TestHookWorkspaceIsNotTheModelsDirectory(t *testing.T) {
	ws := fixture(t)
	other, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(other, "id_rsa"), []byte("SECRET\n"), 0o600))
	noEnv := func(string) string { return "" }
	inProject := func() (string, error) { return ws, nil }
	engine := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { engine.Close() })
	patch := "*** Begin Patch\n*** Add File: planted.txt\n+x\n*** End Patch\n"

	for _, c := range []struct {
		name string
		ev   hook.Event
		opt  hook.Options
	}{
		// Codex hands the model's workdir to the hook as cwd; its own
		// working directory is the session's.
		{"codex workdir read", hookEvent(hook.Codex, other, "Bash", map[string]any{"command": "cat id_rsa"}),
			hook.Options{Engine: engine, Getenv: noEnv, Getwd: inProject}},
		{"codex workdir write", hookEvent(hook.Codex, other, "apply_patch", map[string]any{"command": patch}),
			hook.Options{Engine: engine, Getenv: noEnv, Getwd: inProject}},
		{"codex workdir argument", hookEvent(hook.Codex, ws, "Bash", map[string]any{"command": "cat id_rsa", "workdir": other}),
			hook.Options{Engine: engine, Getenv: noEnv, Getwd: inProject}},
		// A pinned workspace wins over everything in the event.
		{"pinned", hookEvent(hook.Claude, other, "Bash", map[string]any{"command": "cat id_rsa"}),
			hook.Options{Engine: engine, Getenv: func(k string) string { return map[string]string{"CLAUDE_PROJECT_DIR": other}[k] }, Workspace: ws}},
		// Claude Code and Gemini CLI name the project in a variable; an
		// event's cwd elsewhere is the model's cd, not the project.
		{"claude cwd", hookEvent(hook.Claude, other, "Bash", map[string]any{"command": "cat id_rsa"}),
			hook.Options{Engine: engine, Getenv: func(k string) string { return map[string]string{"CLAUDE_PROJECT_DIR": ws}[k] }}},
		{"gemini dir_path", hookEvent(hook.Gemini, ws, "run_shell_command", map[string]any{"command": "cat id_rsa", "dir_path": other}),
			hook.Options{Engine: engine, Getenv: func(k string) string { return map[string]string{"GEMINI_PROJECT_DIR": ws}[k] }}},
		{"gemini read_file", hookEvent(hook.Gemini, other, "read_file", map[string]any{"file_path": "id_rsa"}),
			hook.Options{Engine: engine, Getenv: func(k string) string { return map[string]string{"GEMINI_PROJECT_DIR": ws}[k] }}},
	} {
		t.Setenv("XDG_STATE_HOME", t.TempDir())
		v := hook.Decide(context.Background(), c.ev, c.opt)
		assert.Equal(t, hook.Deny, v.Kind, "%s: %s", c.name, v.Message())
		assert.Equal(t, "outside_workspace", v.Code, "%s: %s", c.name, v.Message())
	}
	assert.NoFileExists(t, filepath.Join(other, "planted.txt"))

	// With nothing the person set, the hook refuses rather than take the
	// event's cwd.
	for _, h := range []hook.Harness{hook.Claude, hook.Gemini, hook.Codex} {
		tool := map[hook.Harness]string{hook.Claude: "Bash", hook.Codex: "Bash", hook.Gemini: "run_shell_command"}[h]
		v := hook.Decide(context.Background(), hookEvent(h, other, tool, map[string]any{"command": "cat id_rsa"}),
			hook.Options{Engine: engine, Getenv: noEnv, Getwd: func() (string, error) { return "", os.ErrNotExist }})
		assert.Equal(t, hook.Deny, v.Kind, h)
		assert.Equal(t, "no_workspace", v.Code, "%s: %s", h, v.Message())
	}
}

// The same through `vtexec hook` as Codex runs it: in the session's
// directory, with the model's workdir as the event's cwd.
func TestHookMainCodexWorkdirOutside(t *testing.T) {
	ws := fixture(t)
	other, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(other, "id_rsa"), []byte("SECRET\n"), 0o600))
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Chdir(ws)
	ev := `{"session_id":"s","turn_id":"t","cwd":` + jsonString(other) + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat id_rsa"}}`
	var out, errb bytes.Buffer
	code := hook.Main([]string{"--harness", "codex"}, strings.NewReader(ev), &out, &errb, []string{"PATH=" + os.Getenv("PATH")})
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), "outside_workspace")
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Every tool a harness sends is known by name, or refused: an alias the
// harness accepts, a tool that runs a command under another name, or a
// new tool does not pass unchecked.
func TestHookUnknownToolsFailClosed(t *testing.T) {
	ws := fixture(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	opt := hook.Options{Engine: closedAfter(t, vtexec.NewEngine(vtexec.Config{})), Getenv: func(string) string { return "" }, Workspace: ws}
	for _, c := range []struct {
		h     hook.Harness
		tool  string
		input map[string]any
		code  string
	}{
		// Gemini CLI's legacy name for grep_search.
		{hook.Gemini, "search_file_content", map[string]any{"pattern": "root", "dir_path": "/etc"}, "outside_workspace"},
		// Claude Code's Monitor runs a command.
		{hook.Claude, "Monitor", map[string]any{"command": "cat /etc/passwd", "description": "watch"}, "outside_workspace"},
		{hook.Claude, "Workflow", map[string]any{"scriptPath": "/etc/passwd"}, "outside_workspace"},
		{hook.Claude, "EnterWorktree", map[string]any{"name": "x"}, "unchecked_tool"},
		{hook.Claude, "BrandNewTool", map[string]any{"path": "/etc/passwd"}, "unknown_tool"},
		{hook.Gemini, "read_file_v2", map[string]any{"file_path": "/etc/passwd"}, "unknown_tool"},
		{hook.Codex, "shell", map[string]any{"command": []string{"cat", "/etc/passwd"}}, "unknown_tool"},
		{hook.Codex, "mcp_evil", map[string]any{}, "unknown_tool"},
	} {
		v := hook.Decide(context.Background(), hookEvent(c.h, ws, c.tool, c.input), opt)
		assert.Equal(t, hook.Deny, v.Kind, "%s %s: %s", c.h, c.tool, v.Message())
		assert.Equal(t, c.code, v.Code, "%s %s: %s", c.h, c.tool, v.Message())
	}
	// The installed matcher sends every tool to the hook.
	for _, h := range []hook.Harness{hook.Claude, hook.Gemini} {
		out, _, err := hook.Edit(nil, h, "/v/vtexec", "", true)
		require.NoError(t, err)
		assert.Contains(t, string(out), `"matcher": ".*"`, h)
	}
	assert.Contains(t, hook.CodexSnippet("/v/vtexec", ""), `matcher = ".*"`)
}
