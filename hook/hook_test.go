package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec"
)

// TestMain lets the test binary stand in for vtexec in a rewritten line:
// with HOOK_TEST_PRINT_ARGV=1 it prints its arguments as JSON.
func TestMain(m *testing.M) {
	if os.Getenv("HOOK_TEST_PRINT_ARGV") == "1" {
		_ = json.NewEncoder(os.Stdout).Encode(os.Args[1:])
		os.Exit(0)
	}
	code := m.Run()
	closeTestEngines()
	os.Exit(code)
}

var (
	testEnginesMu sync.Mutex
	testEngines   []*vtexec.Engine
)

// newTestEngine is an Engine closed when the tests end: its boxes'
// cgroups go with it.
func newTestEngine() *vtexec.Engine {
	e := vtexec.NewEngine(vtexec.Config{})
	testEnginesMu.Lock()
	defer testEnginesMu.Unlock()
	testEngines = append(testEngines, e)
	return e
}

func closeTestEngines() {
	testEngine.Close()
	for _, e := range testEngines {
		e.Close()
	}
}

// project makes a workspace with a file, a subdirectory and a .git, and
// private vtexec config and state.
func project(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for name, body := range map[string]string{"README.md": "hello\n", "src/a.txt": "a\n", ".git/config": "[core]\n"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func event(h Harness, cwd, tool string, input map[string]any) Event {
	in := map[string]json.RawMessage{}
	for k, v := range input {
		b, _ := json.Marshal(v)
		in[k] = b
	}
	return Event{Harness: h, SessionID: "sess-1", Cwd: cwd, ToolName: tool, ToolInput: in}
}

// options decide events of the project ws, pinned.
func options(ws, exe string) Options {
	return Options{Engine: newTestEngine(), Exe: exe, Getenv: func(string) string { return "" }, Workspace: ws}
}

const fakeExe = "/opt/vt exec/vtexec"

func TestShellAllowedIsRewrittenThroughVtexec(t *testing.T) {
	ws := project(t)
	v := Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": "ls src", "description": "list"}), options(ws, fakeExe))
	require.Equal(t, Rewrite, v.Kind, v.Message())
	var cmd string
	require.NoError(t, json.Unmarshal(v.Input["command"], &cmd))
	assert.Equal(t, `'/opt/vt exec/vtexec' 'run' '--no-prompt' '--workspace' '`+ws+`' '--session' 'sess-1' '--' 'ls src'`, cmd)
	assert.JSONEq(t, `"list"`, string(v.Input["description"]), "the other arguments are sent back")

	// The tool's directory argument becomes --cwd, confined.
	v = Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": "ls", "dir_path": "src"}), options(ws, fakeExe))
	require.Equal(t, Rewrite, v.Kind, v.Message())
	require.NoError(t, json.Unmarshal(v.Input["command"], &cmd))
	assert.Contains(t, cmd, `'--cwd' '`+ws+`/src'`)
	assert.JSONEq(t, `"src"`, string(v.Input["dir_path"]))

	v = Decide(context.Background(), event(Codex, ws, "Bash", map[string]any{"command": "ls", "workdir": "/etc"}), options(ws, fakeExe))
	assert.Equal(t, Deny, v.Kind)
	assert.Equal(t, "outside_workspace", v.Code)
}

func TestShellRefusedCarriesVtexecsCode(t *testing.T) {
	ws := project(t)
	for _, h := range []Harness{Claude, Codex, Gemini} {
		tool := map[Harness]string{Claude: "Bash", Codex: "Bash", Gemini: "run_shell_command"}[h]
		v := Decide(context.Background(), event(h, ws, tool, map[string]any{"command": "cat /etc/passwd"}), options(ws, fakeExe))
		assert.Equal(t, Deny, v.Kind, h)
		assert.Equal(t, "outside_workspace", v.Code, h)
		assert.NotEmpty(t, v.Hint)
		assert.Contains(t, string(Render(h, v)), "vtexec refused (outside_workspace)")
	}
}

func TestShellAskIsAnAskOnlyForClaude(t *testing.T) {
	ws := project(t)
	const cmd = "tar -cf out.tar README.md"
	check, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
	require.NoError(t, err)
	require.Equal(t, "ask", string(check.Decision), "the test needs a command vtexec asks about")

	v := Decide(context.Background(), event(Claude, ws, "Bash", map[string]any{"command": cmd}), options(ws, fakeExe))
	assert.Equal(t, Ask, v.Kind)
	for _, h := range []Harness{Gemini, Codex} {
		tool := map[Harness]string{Codex: "Bash", Gemini: "run_shell_command"}[h]
		v := Decide(context.Background(), event(h, ws, tool, map[string]any{"command": cmd}), options(ws, fakeExe))
		assert.Equal(t, Deny, v.Kind, h)
		assert.Equal(t, vtexec.CodeNeedsApproval, v.Code, h)
		assert.Contains(t, v.Hint, "run it in a terminal to be asked", h)
	}
}

func TestShellSessionCarriesCd(t *testing.T) {
	ws := project(t)
	// A cd run through vtexec in this session moves the session's cwd;
	// the next check starts there, so a relative path means src/…
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: "cd src", Workspace: ws, Session: "sess-1", AuditLog: "off"})
	require.NoError(t, err)
	require.True(t, res.Decision.Allowed(), res.Decision.Reason)
	v := Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": "cat a.txt"}), options(ws, fakeExe))
	assert.Equal(t, Rewrite, v.Kind, v.Message())
	v = Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": "cat ../../etc/passwd"}), options(ws, fakeExe))
	assert.Equal(t, Deny, v.Kind)
}

// The rewritten line, run by bash, gives vtexec exactly the command the
// model wrote, whatever it holds.
func TestRewriteLineSurvivesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, cmd := range []string{
		`echo "it's $(id) and ` + "`id`" + `"; rm -rf /`,
		"a\nb\n\tc",
		`'`, `''`, `'\''`, `\`, `\\`, `\'`, `"`,
		`* ? [a] {a,b} ~root ~`,
		`$HOME ${x:-y} $((1+1)) !! !$`,
		`x; y && z || w | v & u > /tmp/out < /etc/passwd 2>&1`,
		`héllo wörld 日本語 🙂 ` + "\u202e\u00a0",
		`--help`, `-- --`, ` leading and trailing `,
		"cat <<EOF\n$(id)\nEOF",
	} {
		line := RewriteLine(exe, "/w s/'p'", "/w s/'p'/sub dir", "sess-'1", cmd)
		c := exec.Command(bash, "-c", line)
		c.Env = append(os.Environ(), "HOOK_TEST_PRINT_ARGV=1")
		out, err := c.Output()
		require.NoError(t, err, cmd)
		var argv []string
		require.NoError(t, json.Unmarshal(out, &argv), string(out))
		assert.Equal(t, []string{"run", "--no-prompt", "--workspace", "/w s/'p'", "--cwd", "/w s/'p'/sub dir", "--session", "sess-'1", "--", cmd}, argv)
	}
}

func TestNoRewriteAllowsOnlyPlainWords(t *testing.T) {
	ws := project(t)
	opt := options(ws, "")
	opt.Getenv = func(k string) string {
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return ""
	}
	for cmd, want := range map[string]Kind{
		"ls src":                    Allow,
		"ls -la 'src'":              Allow,
		`cat "README.md"`:           Allow,
		"ls src && wc -l README.md": Allow,
		"ls *":                      Deny, // a glob
		"ls ?rc":                    Deny,
		"ls {src,.}":                Deny,
		"ls src > out.txt":          Deny, // bash would open the file
		"git status":                Deny,
		"cat a\\ b":                 Deny,
		"sort --key 2 README.md":    Deny, // vtexec runs sort --key=2 README.md
		"sort --key=2 README.md":    Allow,
	} {
		v := Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": cmd}), opt)
		assert.Equal(t, want, v.Kind, "%s: %s", cmd, v.Message())
		if want == Deny {
			// vtexec itself allows each; only bash running it is unsafe.
			assert.Equal(t, "needs_vtexec", v.Code, cmd)
		}
	}

	// A PATH where bash would find another ls than vtexec's.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\n"), 0o755))
	opt.Getenv = func(k string) string {
		if k == "PATH" {
			return bin + ":" + os.Getenv("PATH")
		}
		return ""
	}
	v := Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": "ls"}), opt)
	assert.Equal(t, Deny, v.Kind)
	assert.Contains(t, v.Reason, "bash would run ls from "+bin)
}

func TestFileToolsAreConfined(t *testing.T) {
	ws := project(t)
	outside := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".codex"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(ws, ".codex", "config.toml"), filepath.Join(ws, "to-settings")))
	patch := func(lines ...string) string {
		return "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch\n"
	}
	for _, c := range []struct {
		h     Harness
		tool  string
		input map[string]any
		code  string // "" passes
	}{
		{Claude, "Read", map[string]any{"file_path": ws + "/README.md"}, ""},
		{Claude, "Read", map[string]any{"file_path": "/etc/passwd"}, "outside_workspace"},
		{Claude, "Read", map[string]any{"file_path": "~/.ssh/id_rsa"}, "bad_path"},
		{Claude, "Write", map[string]any{"file_path": "new.txt", "content": "x"}, ""},
		{Claude, "Write", map[string]any{"file_path": ".git/config", "content": "x"}, "protected_path"},
		{Claude, "Edit", map[string]any{"file_path": outside + "/x"}, "outside_workspace"},
		{Claude, "MultiEdit", map[string]any{"file_path": ".vtexec/policy.toml"}, "protected_path"},
		// The names vtexec's box keeps read-only: harness and editor
		// settings (hooks!), .envrc, .mcp.json, .gitattributes.
		{Claude, "Write", map[string]any{"file_path": ".claude/settings.json"}, "protected_path"},
		{Claude, "Edit", map[string]any{"file_path": ws + "/.Gemini/settings.json"}, "protected_path"},
		{Claude, "Write", map[string]any{"file_path": "to-settings"}, "protected_path"}, // a link into .codex
		{Claude, "Read", map[string]any{"file_path": ".claude/settings.json"}, ""},
		// Below the root the box does not keep it, but a person is asked.
		{Claude, "Write", map[string]any{"file_path": "src/.claude/notes"}, "agent_config"},
		{Gemini, "write_file", map[string]any{"file_path": ".gemini/settings.json", "content": "{}"}, "protected_path"},
		{Gemini, "replace", map[string]any{"file_path": ".envrc"}, "protected_path"},
		{Codex, "apply_patch", map[string]any{"command": patch("*** Add File: .mcp.json")}, "protected_path"},
		{Codex, "apply_patch", map[string]any{"command": patch("*** Update File: src/a.txt", "*** Move to: .vscode/tasks.json")}, "protected_path"},
		{Claude, "NotebookEdit", map[string]any{"notebook_path": "../x.ipynb"}, "outside_workspace"},
		{Claude, "Glob", map[string]any{"pattern": "src/**/*.txt"}, ""},
		{Claude, "Glob", map[string]any{"pattern": "../**/*"}, "outside_workspace"},
		{Claude, "Glob", map[string]any{"pattern": "src/*/../../../etc/*"}, "bad_path"},
		{Claude, "Glob", map[string]any{"pattern": "{/etc,src}/*"}, "bad_path"},
		{Claude, "Glob", map[string]any{"pattern": "{src,README.md}"}, ""},
		{Gemini, "read_many_files", map[string]any{"include": []string{"**/{..,x}/*"}}, "bad_path"},
		{Claude, "Grep", map[string]any{"pattern": "x", "path": "/etc"}, "outside_workspace"},
		{Claude, "Read", map[string]any{"file_path": ".git/config"}, ""}, // reading .git is fine
		{Gemini, "read_file", map[string]any{"file_path": "/etc/passwd"}, "outside_workspace"},
		{Gemini, "read_file", map[string]any{"file_path": "README.md"}, ""},
		{Gemini, "write_file", map[string]any{"file_path": ".git/hooks/pre-commit", "content": "x"}, "protected_path"},
		{Gemini, "replace", map[string]any{"file_path": "README.md", "old_string": "a", "new_string": "b"}, ""},
		{Gemini, "list_directory", map[string]any{"dir_path": "/"}, "outside_workspace"},
		{Gemini, "read_many_files", map[string]any{"include": []string{"src/*.txt", "/etc/*"}}, "outside_workspace"},
		{Gemini, "read_many_files", map[string]any{"include": []string{"src/**", "README.md"}}, ""},
		{Gemini, "glob", map[string]any{"pattern": "*.md", "dir_path": outside}, "outside_workspace"},
		{Gemini, "grep_search", map[string]any{"pattern": "x", "dir_path": "src"}, ""},
		{Codex, "apply_patch", map[string]any{"input": patch("*** Add File: src/new.txt", "+x")}, ""},
		{Codex, "apply_patch", map[string]any{"input": patch("*** Update File: ../escape.txt", "@@", "-a", "+b")}, "outside_workspace"},
		{Codex, "apply_patch", map[string]any{"input": patch("*** Update File: src/a.txt", "*** Move to: .git/config", "@@")}, "protected_path"},
		{Codex, "apply_patch", map[string]any{"input": patch("*** Delete File: " + outside + "/y")}, "outside_workspace"},
		{Codex, "apply_patch", map[string]any{"input": "no patch here"}, "bad_request"},
		{Codex, "apply_patch", map[string]any{"command": patch("*** Add File:/etc/x")}, "bad_path"},
		{Codex, "apply_patch", map[string]any{"command": patch("***  Update File: ../x")}, "bad_path"},
		{Codex, "apply_patch", map[string]any{"command": patch("*** update file: ../x")}, "bad_path"},
		{Codex, "apply_patch", map[string]any{"command": patch("  *** Delete File: ../x")}, "outside_workspace"},
		{Codex, "apply_patch", map[string]any{"command": patch("*** Update File: src/a.txt", "@@", " *** not a header", "*** End of File")}, ""},
		{Codex, "apply_patch", map[string]any{"command": patch("*** Add File: /tmp/x")}, "outside_workspace"},
		{Codex, "view_image", map[string]any{"path": "/etc/passwd"}, "outside_workspace"},
		{Codex, "view_image", map[string]any{"path": "README.md"}, ""},
		// Tools the hook does not guard pass unchanged.
		{Claude, "Task", map[string]any{"prompt": "read /etc/passwd"}, ""},
		{Claude, "WebFetch", map[string]any{"url": "https://example.com"}, ""},
		{Gemini, "mcp_vtexec_shell", map[string]any{"command": "cat /etc/passwd"}, ""},
		{Gemini, "save_memory", map[string]any{"fact": "x"}, ""},
	} {
		v := Decide(context.Background(), event(c.h, ws, c.tool, c.input), options(ws, fakeExe))
		switch c.code {
		case "":
			assert.Equal(t, Pass, v.Kind, "%s %s %v: %s", c.h, c.tool, c.input, v.Message())
		case "agent_config":
			assert.Equal(t, Ask, v.Kind, "%s %s %v", c.h, c.tool, c.input)
			assert.Equal(t, c.code, v.Code)
		default:
			assert.Equal(t, Deny, v.Kind, "%s %s %v", c.h, c.tool, c.input)
			assert.Equal(t, c.code, v.Code, "%s %s %v: %s", c.h, c.tool, c.input, v.Message())
		}
	}
}

func TestPolicyRootsWidenFileTools(t *testing.T) {
	ws := project(t)
	extra := t.TempDir()
	cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec")
	require.NoError(t, os.MkdirAll(cfg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "policy.toml"), []byte("[[root]]\npath = \""+extra+"\"\naccess = \"read-only\"\n"), 0o644))
	v := Decide(context.Background(), event(Claude, ws, "Read", map[string]any{"file_path": extra + "/x"}), options(ws, fakeExe))
	assert.Equal(t, Pass, v.Kind, v.Message())
	v = Decide(context.Background(), event(Claude, ws, "Write", map[string]any{"file_path": extra + "/x"}), options(ws, fakeExe))
	assert.Equal(t, "protected_path", v.Code, "a read-only root")
}

func TestMainEndToEnd(t *testing.T) {
	ws := project(t)
	run := func(args []string, in string, env ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(in), &out, &errb, env)
		return code, out.String(), errb.String()
	}
	ev := strings.ReplaceAll(geminiShellEvent, "/t/work", ws)
	code, out, _ := run([]string{"--harness", "gemini"}, ev, "GEMINI_PROJECT_DIR="+ws)
	require.Equal(t, 0, code)
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	var got struct {
		Decision string `json:"decision"`
		Spec     struct {
			Input map[string]string `json:"tool_input"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "allow", string(got.Decision))
	assert.Equal(t, RewriteLine(exe, ws, "", "2226e335-c07f-411c-81e8-3402355ed092", "ls"), got.Spec.Input["command"])

	// Auto recognises Claude Code; a refusal is JSON, exit 0.
	ev = strings.ReplaceAll(strings.ReplaceAll(claudeEvent, "/t/work", ws), `"command":"ls"`, `"command":"cat /etc/passwd"`)
	code, out, _ = run(nil, ev, "CLAUDE_PROJECT_DIR="+ws)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, `"permissionDecision":"deny"`)
	assert.Contains(t, out, "outside_workspace")

	// --no-rewrite: a plain command is allowed as it is in Gemini CLI's
	// bash -c, never in Claude Code's shell, which loads the user's.
	ev = strings.ReplaceAll(geminiShellEvent, "/t/work", ws)
	code, out, _ = run([]string{"--no-rewrite"}, ev, "PATH="+os.Getenv("PATH"), "GEMINI_PROJECT_DIR="+ws)
	assert.Equal(t, 0, code)
	assert.JSONEq(t, `{"decision":"allow"}`, out)
	ev = strings.ReplaceAll(claudeEvent, "/t/work", ws)
	code, out, _ = run([]string{"--no-rewrite"}, ev, "PATH="+os.Getenv("PATH"), "CLAUDE_PROJECT_DIR="+ws)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "needs_vtexec")

	// An event it cannot read blocks: exit 2, the reason on stderr.
	code, out, errs := run([]string{"--harness", "claude"}, `{"hook_event_name":"PreToolUse"`)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, "vtexec refused (bad_request)")
	code, _, _ = run([]string{"--harness", "cursor"}, ev)
	assert.Equal(t, 2, code)
}

// FuzzRewriteLine: whatever the command, the rewritten line parses as
// bash into exactly the intended words, each one single-quoted text.
func FuzzRewriteLine(f *testing.F) {
	for _, s := range []string{"ls", `'`, `'\''`, "a\nb", "$(id)", "`id`", `\`, "日本", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if strings.IndexByte(cmd, 0) >= 0 || !utf8.ValidString(cmd) {
			return // JSON strings carry neither to the hook
		}
		if strings.Contains(cmd, "\r\n") {
			return // refused before any rewrite: the parser would drop the CR
		}
		line := RewriteLine("/v t/vtexec", "/w", "/w/s", "id-1", cmd)
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		require.NoError(t, err)
		require.Len(t, file.Stmts, 1)
		call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		require.True(t, ok)
		var words []string
		for _, w := range call.Args {
			for _, p := range w.Parts {
				switch p := p.(type) {
				case *syntax.SglQuoted:
					require.False(t, p.Dollar)
				case *syntax.Lit:
					require.Equal(t, `\'`, p.Value, "only the escaped quote is unquoted")
				default:
					t.Fatalf("part %T in %q", p, line)
				}
			}
			fields, err := expand.Fields(nil, w)
			require.NoError(t, err)
			require.Len(t, fields, 1)
			words = append(words, fields[0])
		}
		assert.Equal(t, []string{"/v t/vtexec", "run", "--no-prompt", "--workspace", "/w", "--cwd", "/w/s", "--session", "id-1", "--", cmd}, words)
	})
}

// testEngine runs the requests of tests that need no engine of their own.
var testEngine = vtexec.NewEngine(vtexec.Config{})

// A harness session that keeps probing is escalated: Claude Code asks its
// person about a command vtexec would have allowed; a harness that
// cannot ask through the hook is refused with session_escalated.
func TestHookSessionThatKeepsProbingIsEscalated(t *testing.T) {
	ws := project(t)
	opt := options(ws, fakeExe)
	for _, h := range []Harness{Claude, Gemini} {
		tool := map[Harness]string{Claude: "Bash", Gemini: "run_shell_command"}[h]
		decide := func(cmd string) Verdict {
			return Decide(context.Background(), event(h, ws, tool, map[string]any{"command": cmd}), opt)
		}
		require.Equal(t, Rewrite, decide("cat README.md").Kind, h)
		for _, probe := range []string{"cat /etc/shadow", "sudo ls", "cat ../x"} {
			require.Equal(t, Deny, decide(probe).Kind, "%s: %s", h, probe)
		}
		v := decide("cat README.md")
		if h == Claude {
			assert.Equal(t, Ask, v.Kind, "Claude Code asks its person")
		} else {
			assert.Equal(t, Deny, v.Kind, h)
			assert.Equal(t, vtexec.CodeSessionEscalated, v.Code, h)
		}
		// The events' session ids are the same (sess-1): reset it.
		require.NoError(t, opt.Engine.ResetSession(vtexec.Request{Workspace: ws, Session: "sess-1", AuditLog: "off"}))
		assert.Equal(t, Rewrite, decide("cat README.md").Kind, "%s: reset", h)
	}
}
