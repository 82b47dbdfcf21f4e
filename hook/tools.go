package hook

import (
	"slices"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/codes"
)

// A tool the hook is sent is a shell tool (shellTools: decided by the
// engine and rewritten), a file tool (fileTools, and Codex's apply_patch:
// its paths confined), a tool that runs what the hook cannot check
// (refusedTools), or one of the harness's other tools (otherTools: no
// objection, the harness's own rules apply). A name in none of these is
// refused: a harness that adds a tool, or accepts a name the hook does
// not know, fails closed. The lists are what each pinned harness
// registers — the tool declarations it sends its model (Claude Code
// 2.1.330 and Codex 0.169.0, recorded by the real-harness tests against
// the scripted model; Gemini CLI 0.61.0, its declarations and
// TOOL_LEGACY_ALIASES) — and the names earlier versions used.

// shellTools are the shell tools and the argument that holds the command
// and, if any, the directory to run it in.
var shellTools = sync.OnceValue(func() map[Harness]map[string][2]string {
	return map[Harness]map[string][2]string{
		// Monitor runs its command in the background, streaming its lines.
		Claude: {"Bash": {"command", ""}, "Monitor": {"command", ""}},
		// Codex reports exec_command as Bash; the model's workdir comes as
		// the event's cwd.
		Codex:  {"Bash": {"command", "workdir"}, "exec_command": {"cmd", "workdir"}},
		Gemini: {"run_shell_command": {"command", "dir_path"}},
	}
})

// otherTools are the tools that take no path and run nothing the hook
// could check: sub-agents (whose own tool calls come to the hook),
// plans, todos, questions to the person, the web, schedules.
var otherTools = sync.OnceValue(func() map[Harness][]string {
	return map[Harness][]string{
		Claude: {"Agent", "Task", "ListAgents", "SendMessage", "TaskStop", "TaskOutput", "BashOutput", "KillShell",
			"ReportFindings", "ScheduleWakeup", "Skill", "ToolSearch", "DeferredToolPlaceholder",
			"CronCreate", "CronDelete", "CronList", "ExitWorktree", "WebFetch", "WebSearch", "TodoWrite", "ExitPlanMode"},
		// write_stdin types into a session exec_command started (through
		// vtexec run once rewritten); Codex 0.169.0 sends hooks no event
		// for it.
		Codex: {"request_user_input", "get_goal", "create_goal", "update_goal", "tool_search", "web_search", "update_plan", "write_stdin"},
		Gemini: {"update_topic", "web_fetch", "google_web_search", "write_todos", "enter_plan_mode", "exit_plan_mode",
			"invoke_agent", "activate_skill", "ask_user", "complete_task", "get_internal_docs", "save_memory",
			"list_background_processes", "read_background_output", "read_mcp_resource", "list_mcp_resources",
			"tracker_create_task", "tracker_update_task", "tracker_get_task", "tracker_list_tasks",
			"tracker_add_dependency", "tracker_visualize", "take_snapshot"},
	}
})

// refusedTools run code or programs the hook cannot check, with why.
var refusedTools = sync.OnceValue(func() map[Harness]map[string]string {
	return map[Harness]map[string]string{
		Claude: {"EnterWorktree": "EnterWorktree runs git itself (git worktree add, the repository's hooks), outside vtexec"},
	}
})

// CodeUnknownTool refuses a tool the hook does not know, and
// CodeUncheckedTool one that runs what it cannot check.
const (
	CodeUnknownTool   = codes.UnknownTool
	CodeUncheckedTool = codes.UncheckedTool
)

// isMCPTool reports whether name is an MCP server's tool as h names it
// (mcp__server__tool in Claude Code and Codex, mcp_server_tool in Gemini
// CLI): the server decides for itself (vtexec serve does).
func isMCPTool(h Harness, name string) bool {
	if h == Gemini {
		return strings.HasPrefix(name, "mcp_") && strings.Count(name, "_") >= 2
	}
	rest, ok := strings.CutPrefix(name, "mcp__")
	return ok && strings.Contains(rest, "__")
}

// toolClass is how the hook treats a tool: "shell", "file", "refused",
// "other" or "" (unknown).
func toolClass(h Harness, name string) string {
	switch {
	case shellTools()[h][name] != [2]string{}:
		return "shell"
	case fileTools()[h][name] != nil, h == Codex && (name == "apply_patch" || name == "ApplyPatch"):
		return "file"
	case refusedTools()[h][name] != "":
		return "refused"
	case slices.Contains(otherTools()[h], name), isMCPTool(h, name):
		return "other"
	}
	return ""
}
