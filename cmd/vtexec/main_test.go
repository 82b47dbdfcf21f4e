package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/execpolicy"
)

// TestMain lets the test binary act as the vtexec command, so a test can
// run the real CLI in its own process and read its resource usage.
// The transcript tests (TestScripts) run it as "vtexec" the same way.
func TestMain(m *testing.M) {
	if os.Getenv("VTEXEC_TEST_AS_CLI") == "1" {
		main()
	}
	testscript.Main(m, map[string]func(){"vtexec": main})
}

func cliWorkspace(t testing.TB) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	for name, body := range map[string]string{"README.md": "l1\nl2\nl3\n", "src/a.txt": "TODO a\n"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckExitCodes(t *testing.T) {
	ws := cliWorkspace(t)
	tests := []struct {
		cmd  []string
		code int
	}{
		{[]string{"cat src/a.txt | wc -l"}, exitAllow},
		{[]string{"cat ../x"}, exitDeny},
		{[]string{"tar -cf out.tar src"}, exitAsk}, // tar is in Debian's base; the CLI has no stand-ins
		{[]string{"cat", "src/a.txt"}, exitAllow},
		{[]string{"cat", "../x"}, exitDeny},
	}
	for _, tc := range tests {
		code, out, _ := cli(t, "", append([]string{"check", "--workspace", ws, "--"}, tc.cmd...)...)
		assert.Equal(t, tc.code, code, "%q: %s", tc.cmd, out)
	}
}

func TestCheckJSONShape(t *testing.T) {
	ws := cliWorkspace(t)
	code, out, _ := cli(t, "", "check", "--workspace", ws, "--cwd", "src", "--json", "--", "cat a.txt && cat ../../x")
	assert.Equal(t, exitDeny, code)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, "deny", v["decision"])
	assert.Equal(t, "outside_workspace", v["code"])
	assert.Equal(t, "cat a.txt && cat ../../x", v["cmd"])
	for _, k := range []string{"reason", "hint"} {
		assert.NotEmpty(t, v[k], k)
	}
	cmds := v["commands"].([]any)
	require.Len(t, cmds, 2)
	first := cmds[0].(map[string]any)
	assert.Equal(t, []any{"cat", "a.txt"}, first["argv"])
	assert.True(t, filepath.IsAbs(first["program"].(string)))
}

func TestUsageErrors(t *testing.T) {
	ws := cliWorkspace(t)
	for _, args := range [][]string{
		{},
		{"bogus"},
		{"check", "--workspace", ws},
		{"check", "--nope", "--", "ls"},
		{"check", "--workspace", filepath.Join(ws, "missing"), "--", "ls"},
		{"check", "--workspace", ws, "--cwd", "/", "--", "ls"},
		{"run", "--workspace", ws, "--max-output", "lots", "--", "ls"},
		{"run", "--workspace", ws, "--timeout", "-1s", "--", "ls"},
		{"check", "--jsonl", "--", "ls"},
	} {
		code, _, stderr := cli(t, "", args...)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Contains(t, stderr, "vtexec:", "%q", args)
	}
}

func TestCheckStreamKeepsOrderAndGoesOn(t *testing.T) {
	ws := cliWorkspace(t)
	in := strings.Join([]string{
		`{"cmd": "ls"}`,
		`not json`,
		``,
		`{"cmd": ["cat", "../x"]}`,
		`{"cmd": 42}`,
		`{"cmd": "cat a.txt", "cwd": "src"}`,
		`{"cmd": "ls", "cwd": "../.."}`,
		`{"cmd": "$(id) -u", "expect": "deny", "other": [1,2]}`,
	}, "\n") + "\n"
	code, out, _ := cli(t, in, "check", "--jsonl", "--workspace", ws)
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 8)
	want := []struct{ decision, code string }{
		{"allow", ""}, {"deny", "bad_request"}, {"deny", "bad_request"}, {"deny", "outside_workspace"},
		{"deny", "bad_request"}, {"allow", ""}, {"deny", "bad_request"}, {"deny", "substitution"},
	}
	for i, line := range lines {
		var v struct{ Decision, Code string }
		require.NoError(t, json.Unmarshal([]byte(line), &v), line)
		assert.Equal(t, want[i].decision, v.Decision, "line %d: %s", i+1, line)
		assert.Equal(t, want[i].code, v.Code, "line %d: %s", i+1, line)
	}
}

func TestCheckStreamLongLine(t *testing.T) {
	ws := cliWorkspace(t)
	in := `{"cmd": "` + strings.Repeat("a", maxLine+10) + `"}` + "\n" + `{"cmd": "ls"}` + "\n"
	code, out, _ := cli(t, in, "check", "--jsonl", "--workspace", ws)
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"bad_request"`)
	assert.Contains(t, lines[1], `"allow"`)
}

func TestRunPlainAndJSON(t *testing.T) {
	ws := cliWorkspace(t)
	code, out, _ := cli(t, "", "run", "--workspace", ws, "--", "head -n 2 README.md | wc -l")
	assert.Equal(t, 0, code)
	assert.Equal(t, "2\n", out)

	code, _, stderr := cli(t, "", "run", "--workspace", ws, "--", "cat /etc/passwd")
	assert.Equal(t, 126, code)
	assert.Contains(t, stderr, "outside_workspace")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line when refused")

	code, _, _ = cli(t, "", "run", "--workspace", ws, "--", "cat missing.txt")
	assert.Equal(t, 1, code, "the command's own exit code")

	code, out, _ = cli(t, "", "run", "--workspace", ws, "--json", "--", "cd src && cat a.txt")
	assert.Equal(t, 0, code)
	var res struct {
		Decision struct{ Decision string }
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
		Cwd      string `json:"cwd"`
		TimedOut bool   `json:"timed_out"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	assert.Equal(t, "allow", string(res.Decision.Decision))
	assert.Equal(t, "TODO a\n", res.Stdout)
	real, _ := filepath.EvalSymlinks(filepath.Join(ws, "src"))
	assert.Equal(t, real, res.Cwd)
}

func TestRunTruncatesAndTimesOut(t *testing.T) {
	ws := cliWorkspace(t)
	big := filepath.Join(ws, "big.txt")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("0123456789\n"), 100000), 0o644))
	code, out, _ := cli(t, "", "run", "--workspace", ws, "--json", "--max-output", "1KiB", "--", "cat big.txt")
	assert.Equal(t, 0, code)
	var res struct {
		Stdout    string `json:"stdout"`
		Truncated bool   `json:"truncated"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Stdout), 2048)

	code, out, _ = cli(t, "", "run", "--workspace", ws, "--json", "--timeout", "200ms", "--", "tail -f README.md")
	var tres struct {
		TimedOut bool `json:"timed_out"`
		ExitCode int  `json:"exit_code"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &tres))
	assert.True(t, tres.TimedOut)
	assert.Equal(t, code, tres.ExitCode)
}

func TestParseSize(t *testing.T) {
	good := map[string]int{"65536": 65536, "64KiB": 65536, "64K": 65536, "1MiB": 1 << 20, "2M": 2 << 20, "10B": 10}
	for in, want := range good {
		n, err := execpolicy.ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, n, in)
	}
	for _, in := range []string{"", "0", "-1", "1.5K", "K", "64kb", "99999999999G"} {
		_, err := execpolicy.ParseSize(in)
		assert.Error(t, err, in)
	}
}

func TestRunSessionTracksCwdAcrossCalls(t *testing.T) {
	ws := cliWorkspace(t)
	code, out, stderr := cli(t, "", "run", "--workspace", ws, "--session", "S", "--", "cd src")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "[vtexec-cwd] cwd="), "the marker is the last line: %q", out)

	code, out, _ = cli(t, "", "run", "--workspace", ws, "--session", "S", "--", "ls")
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, "a.txt", lines[0], "ls lists the contents of src")
	real, _ := filepath.EvalSymlinks(filepath.Join(ws, "src"))
	assert.Contains(t, lines[1], `cwd="`+real+`"`)

	code, _, stderr = cli(t, "", "run", "--workspace", ws, "--session", "S", "--", "cd ../..")
	assert.Equal(t, 126, code)
	assert.Contains(t, stderr, "outside_workspace")

	// Output imitating the marker is just output: it is not the last line.
	code, out, _ = cli(t, "", "run", "--workspace", ws, "--session", "S", "--", `echo '[vtexec-cwd] cwd="/etc" exit=0 nonce=00 mac=00'`)
	require.Equal(t, 0, code)
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], `cwd="`+real+`"`)
}

// Without --timeout and --max-output, the policy's [limits] apply.
func TestRunUsesPolicyLimits(t *testing.T) {
	ws := cliWorkspace(t)
	cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vtexec")
	require.NoError(t, os.MkdirAll(cfg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "policy.toml"), []byte("[limits]\ntimeout = \"300ms\"\nmax_output = \"1KiB\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "big.txt"), bytes.Repeat([]byte("0123456789\n"), 5000), 0o644))
	var res struct {
		Stdout    string `json:"stdout"`
		Truncated bool   `json:"truncated"`
		TimedOut  bool   `json:"timed_out"`
	}
	_, out, _ := cli(t, "", "run", "--workspace", ws, "--json", "--", "cat big.txt")
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Stdout), 2048)

	_, out, _ = cli(t, "", "run", "--workspace", ws, "--json", "--", "tail -f README.md")
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.True(t, res.TimedOut)

	// A flag still wins.
	_, out, _ = cli(t, "", "run", "--workspace", ws, "--json", "--max-output", "64KiB", "--", "cat big.txt")
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.False(t, res.Truncated)
}

// Lines are checked on every CPU, and answered in the order they came.
func TestCheckStreamAnswersInOrder(t *testing.T) {
	ws := cliWorkspace(t)
	var in strings.Builder
	var want []string
	for i := range 400 {
		cmd := []string{fmt.Sprintf("echo %d", i), fmt.Sprintf("cat ../x%d", i), fmt.Sprintf("git log -n %d", i+1), fmt.Sprintf("ls $(echo %d)", i)}[i%4]
		want = append(want, cmd)
		line, _ := json.Marshal(map[string]string{"cmd": cmd})
		in.Write(append(line, '\n'))
	}
	code, out, _ := cli(t, in.String(), "check", "--jsonl", "--workspace", ws)
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, len(want))
	for i, line := range lines {
		var d struct{ Cmd string }
		require.NoError(t, json.Unmarshal([]byte(line), &d))
		assert.Equal(t, want[i], d.Cmd, "line %d", i+1)
	}
}
