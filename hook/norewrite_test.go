package hook

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// The builtins and keywords the hook knows are the installed bash's.
func TestBashWordsAreBashs(t *testing.T) {
	out, err := exec.Command("bash", "-c", "compgen -b -k").Output()
	require.NoError(t, err)
	assert.ElementsMatch(t, strings.Fields(string(out)), bashWords())
}

// geminiBash runs command as Gemini CLI 0.61.0's shell tool does:
// bash -c with its shopt guard, in dir, with env.
func geminiBash(dir, command string, env []string) (stdout, stderr string, code int) {
	cmd := exec.Command("/bin/bash", "-c", "shopt -u promptvars nullglob extglob nocaseglob dotglob; "+command)
	cmd.Dir, cmd.Env = dir, env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return o.String(), e.String(), code
}

// TestNoRewriteRunsWhatWasChecked is the differential test of
// --no-rewrite: for plain commands, every builtin and keyword of bash,
// and every variable bash obeys set hostile in the harness's
// environment, a command the hook lets bash run itself gives in real bash
// exactly the output and status vtexec gives for it. Everything else
// must be refused.
func TestNoRewriteRunsWhatWasChecked(t *testing.T) {
	ws := project(t)
	// One session sends every form, probes included: escalation (tested
	// in tests/security) would end the comparison after three.
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	require.NoError(t, os.MkdirAll(filepath.Join(config, "vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(config, "vtexec", "policy.toml"), []byte("escalate_after = 0\n"), 0o644))
	evil := t.TempDir()
	rc := filepath.Join(evil, "rc.sh")
	require.NoError(t, os.WriteFile(rc, []byte("echo SOURCED-RC\nls() { echo HIJACKED; }\ncat() { echo HIJACKED; }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(evil, "ls"), []byte("#!/bin/sh\necho HIJACKED\n"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(evil, "src"), 0o755))
	path := "/usr/local/bin:/usr/bin:/bin"

	commands := []string{"ls src", "cat README.md", "wc -l README.md", "ls src && wc -l README.md",
		"head -n 1 README.md | wc -c", "ls nothing-here || cat src/a.txt", "ls -la 'src'"}
	for _, w := range bashWords() {
		commands = append(commands, w, w+" src", w+" -n README.md", "ls src; "+w+" x y", w+" README.md | wc -l")
	}
	hostile := map[string]string{
		"BASH_ENV": rc, "ENV": rc, "CDPATH": evil, "GLOBIGNORE": "*", "IFS": "s",
		"SHELLOPTS": "xtrace", "BASHOPTS": "nullglob:failglob", "POSIXLY_CORRECT": "1", "BASH_COMPAT": "31",
		"BASH_LOADABLES_PATH": evil, "EXECIGNORE": "*/ls:*/cat:*/wc:*/head", "BASH_XTRACEFD": "1", "PS4": "$(echo HIJACKED)",
		"BASH_FUNC_ls%%": "() {  echo HIJACKED; }", "BASH_FUNC_cat%%": "() {  echo HIJACKED; }",
		"PATH": evil + ":" + path,
	}
	envs := map[string][]string{"clean": {"PATH=" + path, "HOME=" + ws}}
	for k, v := range hostile {
		env := []string{"PATH=" + path, "HOME=" + ws}
		if k == "PATH" {
			env = env[1:]
		}
		envs[k] = append(env, k+"="+v)
	}

	engine := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { engine.Close() })
	allowedClean, checked := 0, 0
	for name, env := range envs {
		getenv := func(k string) string {
			for _, kv := range env {
				if key, v, _ := strings.Cut(kv, "="); key == k {
					return v
				}
			}
			return ""
		}
		opt := Options{Engine: engine, Getenv: getenv, Environ: env, Workspace: ws}
		for _, cmd := range commands {
			v := Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": cmd}), opt)
			if v.Kind != Allow {
				continue
			}
			if name == "clean" {
				allowedClean++
			}
			checked++
			res, err := testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
			require.NoError(t, err)
			require.True(t, res.Decision.Allowed(), cmd)
			out, errOut, code := geminiBash(ws, cmd, env)
			assert.Equal(t, res.Stdout, out, "%s with %s: bash's stdout differs from vtexec's", cmd, name)
			assert.Equal(t, res.Stderr, errOut, "%s with %s: bash's stderr differs", cmd, name)
			assert.Equal(t, res.ExitCode, code, "%s with %s: bash's status differs", cmd, name)
		}
	}
	assert.GreaterOrEqual(t, allowedClean, 5, "plain commands in a clean environment pass")
	t.Logf("%d commands × %d environments; %d allowed and compared", len(commands), len(envs), checked)
}

// Codex (a login shell) and Claude Code (a snapshot of the user's shell)
// run startup code the hook cannot see: no command runs there without
// vtexec.
func TestNoRewriteOnlyInAPlainBash(t *testing.T) {
	ws := project(t)
	opt := options(ws, "")
	opt.Getenv = func(k string) string { return map[string]string{"PATH": os.Getenv("PATH")}[k] }
	for _, h := range []Harness{Claude, Codex} {
		v := Decide(context.Background(), event(h, ws, "Bash", map[string]any{"command": "ls src"}), opt)
		assert.Equal(t, Deny, v.Kind, h)
		assert.Equal(t, "needs_vtexec", v.Code, h)
		assert.Contains(t, v.Reason, "shell", h)
	}
	v := Decide(context.Background(), event(Gemini, ws, "run_shell_command", map[string]any{"command": "ls src"}), opt)
	assert.Equal(t, Allow, v.Kind, v.Message())
}
