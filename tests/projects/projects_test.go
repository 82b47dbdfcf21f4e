//go:build projects

package projects

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec/internal/testbin"
)

// vtexecBin is vtexec built for the test.
var vtexecBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vtexec-projects-")
	if err != nil {
		panic(err)
	}
	if vtexecBin, err = testbin.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// maxNeedless is the share of a session's commands vtexec may refuse or
// ask about for no good reason.
const maxNeedless = 0.03

// toolPath is the PATH both sides run with: vtexec's trusted PATH.
const toolPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/go/bin"

func TestAgentSessions(t *testing.T) {
	for _, name := range []string{"python", "node", "rust", "go"} {
		t.Run(name, func(t *testing.T) { runSession(t, name) })
	}
}

// side is one copy of the project and where its session stands.
type side struct {
	ws, cwd, home string
}

func runSession(t *testing.T, name string) {
	text, err := os.ReadFile(filepath.Join("testdata", name+".session"))
	require.NoError(t, err)
	steps, err := ParseSession(string(text))
	require.NoError(t, err)

	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	vt := &side{ws: filepath.Join(root, "a", "proj"), home: filepath.Join(root, "a", "home")}
	sh := &side{ws: filepath.Join(root, "b", "proj"), home: filepath.Join(root, "b", "home")}
	for _, s := range []*side{vt, sh} {
		s.cwd = s.ws
		require.NoError(t, os.MkdirAll(filepath.Join(s.home, "tmp"), 0o755))
		// The person's name for commits; vtexec gives it to the box.
		require.NoError(t, os.WriteFile(filepath.Join(s.home, ".gitconfig"), []byte("[user]\n\tname = Dev\n\temail = dev@example.com\n"), 0o644))
		copyTree(t, filepath.Join("testdata", name), s.ws)
		setUp(t, name, s.ws)
	}

	srv := startServe(t, vt, root)
	var needless, boxNoted, ran []string
	var failures []string
	for i, st := range steps {
		where := fmt.Sprintf("%s.session:%d", name, st.Line)
		resp, asked := srv.call(t, i+1, st.Command)
		refused := resp.refused()
		switch {
		case st.Expect == "deny" && !refused:
			failures = append(failures, fmt.Sprintf("%s: %q ran; it must be refused (%s)", where, st.Command, st.Why))
		case st.Expect == "allow" && refused:
			needless = append(needless, fmt.Sprintf("%s: %q refused: %s: %s", where, st.Command, resp.code(), resp.reason()))
		case st.Expect == "allow" && asked:
			needless = append(needless, fmt.Sprintf("%s: %q asked: %s", where, st.Command, srv.lastAsk))
		case st.Expect == "ask" && refused:
			needless = append(needless, fmt.Sprintf("%s: %q refused though a person approved it: %s: %s", where, st.Command, resp.code(), resp.reason()))
		}
		if st.Expect == "deny" && refused {
			continue // neither side runs it
		}
		want := runBash(t, sh, st.Command)
		if refused {
			// The person runs it outside vtexec, so the copies stay alike.
			runBash(t, vt, st.Command)
			continue
		}
		ran = append(ran, where)
		got := resp.outcome(vt)
		if diff := compare(got, want, vt, sh, st); diff != "" {
			if resp.boxNote() != "" {
				boxNoted = append(boxNoted, fmt.Sprintf("%s: %q: %s", where, st.Command, resp.boxNote()))
				continue
			}
			failures = append(failures, fmt.Sprintf("%s: %q ends otherwise in vtexec than in bash:\n%s", where, st.Command, diff))
		}
	}
	srv.close(t)

	t.Logf("%s: %d commands, %d run by vtexec, %d needless refusals or asks (%.1f%%), %d differing with the box's note",
		name, len(steps), len(ran), len(needless), 100*float64(len(needless))/float64(len(steps)), len(boxNoted))
	for _, n := range needless {
		t.Logf("needless: %s", n)
	}
	for _, n := range boxNoted {
		t.Logf("box note: %s", n)
	}
	for _, f := range failures {
		t.Error(f)
	}
	if float64(len(needless)) > maxNeedless*float64(len(steps)) {
		t.Errorf("%s: %d of %d commands refused or asked for no good reason, more than %.0f%%", name, len(needless), len(steps), 100*maxNeedless)
	}
}

// copyTree copies the fixture project src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dst, 0o755))
	out, err := exec.Command("cp", "-a", src+"/.", dst).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// gitEnv makes the fixture's first commit the same in both copies.
var gitEnv = []string{"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev",
	"GIT_COMMITTER_EMAIL=dev@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}

// setUp prepares a copy as the person did before the session: the
// project's environment (a virtualenv, node_modules) and a repository
// with one commit.
func setUp(t *testing.T, name, ws string) {
	t.Helper()
	run := func(env []string, argv ...string) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = ws
		cmd.Env = append([]string{"PATH=" + toolPath}, env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%v: %s", argv, out)
	}
	switch name {
	case "python":
		run(nil, "/usr/bin/python3", "-m", "venv", "--system-site-packages", ".venv")
	case "node":
		modules := os.Getenv("VTEXEC_NODE_MODULES")
		if modules == "" {
			cache := os.Getenv("XDG_CACHE_HOME")
			if cache == "" {
				home, err := os.UserHomeDir()
				require.NoError(t, err)
				cache = filepath.Join(home, ".cache")
			}
			modules = filepath.Join(cache, "vtexec-ci", "npm-projects", "node_modules")
		}
		_, err := os.Stat(filepath.Join(modules, ".bin"))
		require.NoError(t, err, "the Node project needs its tools installed (.ci/run installs them; VTEXEC_NODE_MODULES names another place)")
		run(nil, "cp", "-a", modules, filepath.Join(ws, "node_modules"))
	}
	run(gitEnv, "git", "init", "-q", "-b", "main")
	run(gitEnv, "git", "add", "-A")
	run(gitEnv, "git", "commit", "-qm", "initial")
}

// outcome is how a command ended.
type outcome struct {
	exit           int
	stdout, stderr string
	cwd            string
}

// runBash runs cmd with bash in s, from where s stands, and moves s to
// the directory the command ends in.
func runBash(t *testing.T, s *side, command string) outcome {
	t.Helper()
	script := filepath.Join(s.home, "..", "command.sh")
	require.NoError(t, os.WriteFile(script, []byte("trap 'pwd >&3' EXIT\n"+command+"\n"), 0o644))
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd := exec.Command("/bin/bash", "--norc", "--noprofile", script)
	cmd.Dir = s.cwd
	cmd.Env = []string{"PATH=" + toolPath, "HOME=" + s.home, "TMPDIR=" + filepath.Join(s.home, "tmp"), "LANG=C.UTF-8"}
	cmd.ExtraFiles = []*os.File{w}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	require.NoError(t, cmd.Start())
	w.Close()
	cwd, _ := io.ReadAll(r)
	r.Close()
	err = cmd.Wait()
	o := outcome{stdout: stdout.String(), stderr: stderr.String(), cwd: strings.TrimSpace(string(cwd))}
	if ee, ok := err.(*exec.ExitError); ok {
		o.exit = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	if o.cwd != "" {
		s.cwd = o.cwd
	}
	return o
}

// server is vtexec serve --jsonl --ask: one session.
type server struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Scanner
	lastAsk string
}

func startServe(t *testing.T, vt *side, root string) *server {
	t.Helper()
	cmd := exec.Command(vtexecBin, "serve", "--jsonl", "--ask", "--workspace", vt.ws, "--audit", "off")
	cmd.Env = []string{"PATH=" + toolPath, "HOME=" + vt.home, "LANG=C.UTF-8",
		"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config")}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &server{cmd: cmd, in: in, out: sc}
}

func (s *server) send(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	_, err = s.in.Write(append(b, '\n'))
	require.NoError(t, err)
}

// call runs one command, answering "session" to every question; asked
// reports whether there was one.
func (s *server) call(t *testing.T, id int, command string) (resp *response, asked bool) {
	t.Helper()
	s.send(t, map[string]any{"id": id, "tool": "shell", "arguments": map[string]any{"command": command, "timeout_ms": 600000}})
	for s.out.Scan() {
		var msg struct {
			Ask *struct {
				Question string `json:"question"`
				Text     string `json:"text"`
			} `json:"ask"`
			ID json.RawMessage `json:"id"`
			response
		}
		require.NoError(t, json.Unmarshal(s.out.Bytes(), &msg), "%s", s.out.Bytes())
		if msg.Ask != nil {
			asked = true
			s.lastAsk = strings.ReplaceAll(msg.Ask.Text, "\n", " | ")
			s.send(t, map[string]any{"answer": map[string]any{"question": msg.Ask.Question, "answer": "session"}})
			continue
		}
		if string(msg.ID) == fmt.Sprint(id) {
			r := msg.response
			return &r, asked
		}
	}
	require.NoError(t, s.out.Err())
	t.Fatalf("vtexec serve ended before answering %q", command)
	return nil, false
}

func (s *server) close(t *testing.T) {
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		t.Error("vtexec serve did not end after its input did")
	}
}

// response is vtexec serve's answer to a call.
type response struct {
	IsError bool `json:"is_error"`
	Error   *struct {
		Code   string `json:"code"`
		Reason string `json:"reason"`
	} `json:"error"`
	Result *struct {
		Decision struct {
			Decision string `json:"decision"`
			Code     string `json:"code"`
			Reason   string `json:"reason"`
		} `json:"decision"`
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		Cwd      string `json:"cwd"`
		Warnings []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"warnings"`
	} `json:"result"`
}

func (r *response) refused() bool {
	return r.Result == nil || r.Result.Decision.Decision == "deny"
}

func (r *response) code() string {
	if r.Error != nil {
		return r.Error.Code
	}
	if r.Result != nil {
		return r.Result.Decision.Code
	}
	return ""
}

func (r *response) reason() string {
	if r.Error != nil {
		return r.Error.Reason
	}
	if r.Result != nil {
		return r.Result.Decision.Reason
	}
	return ""
}

// boxNote is the box's note on the result, or "".
func (r *response) boxNote() string {
	if r.Result == nil {
		return ""
	}
	for _, w := range r.Result.Warnings {
		if w.Code == "box_denied" || w.Code == "ran_without_network" {
			return w.Code + ": " + w.Message
		}
	}
	return ""
}

// outcome is how the command ended in vtexec; it moves vt to the
// session's new directory.
func (r *response) outcome(vt *side) outcome {
	o := outcome{exit: r.Result.ExitCode, stdout: r.Result.Stdout, stderr: r.Result.Stderr, cwd: r.Result.Cwd}
	if o.cwd != "" {
		vt.cwd = o.cwd
	}
	return o
}

// Numbers that change from one run to the next, and the places that
// differ between the copies by construction.
var (
	vtexecRunDir = regexp.MustCompile(`(/dev/shm|/tmp)/vtexec-\d+/r-[0-9a-f]+/\d+`)
	vtexecCache  = regexp.MustCompile(`/tmp/vtexec-\d+/workspace-[0-9a-f]+/cache`)
	duration     = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds)\b|\(cached\)`)
	durationMs   = regexp.MustCompile(`(duration_ms:?\s*)[0-9.]+`)
	hash         = regexp.MustCompile(`\b[0-9a-f]{7,64}\b`)
	blanks       = regexp.MustCompile(`[ \t]+`)
	// ls -l's time of a file: the copies are made seconds apart (a
	// virtualenv each), sometimes across a minute.
	lsTime = regexp.MustCompile(`\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} +(\d{1,2}:\d{2}|\d{4})\b`)
)

func normalize(text string, s *side) string {
	text = strings.ReplaceAll(text, s.ws, "$WS")
	text = strings.ReplaceAll(text, filepath.Join(s.home, "tmp"), "$HOME/tmp")
	text = strings.ReplaceAll(text, filepath.Join(s.home, ".cache"), "$HOME/.cache")
	text = strings.ReplaceAll(text, s.home, "$HOME")
	text = vtexecRunDir.ReplaceAllString(text, "$$HOME")
	text = vtexecCache.ReplaceAllString(text, "$$HOME/.cache")
	text = durationMs.ReplaceAllString(text, "${1}N")
	text = duration.ReplaceAllString(text, "Ns")
	text = hash.ReplaceAllString(text, "HASH")
	text = lsTime.ReplaceAllString(text, "TIME")
	return blanks.ReplaceAllString(text, " ") // columns aligned to other widths
}

// compare says how got (vtexec, in vt) and want (bash, in sh) differ
// once normalized, or "".
func compare(got, want outcome, vt, sh *side, st Step) string {
	var b strings.Builder
	if got.exit != want.exit {
		fmt.Fprintf(&b, "  exit %d, bash %d\n", got.exit, want.exit)
	}
	if g, w := normalize(got.cwd, vt), normalize(want.cwd, sh); g != w {
		fmt.Fprintf(&b, "  cwd %s, bash %s\n", g, w)
	}
	for _, p := range []struct{ name, got, want string }{{"stdout", got.stdout, want.stdout}, {"stderr", got.stderr, want.stderr}} {
		if g, w := steady(normalize(p.got, vt), st), steady(normalize(p.want, sh), st); g != w {
			fmt.Fprintf(&b, "  %s:\n    vtexec: %q\n    bash:   %q\n", p.name, clip(g), clip(w))
		}
	}
	return b.String()
}

// steady leaves out the lines that match one of the step's volatile
// patterns, and sorts them when its output is unordered.
func steady(text string, st Step) string {
	if len(st.Volatile) == 0 && !st.Unordered {
		return text
	}
	var kept []string
	for _, line := range strings.SplitAfter(text, "\n") {
		bare := strings.TrimSuffix(line, "\n")
		if !slices.ContainsFunc(st.Volatile, func(re *regexp.Regexp) bool { return re.MatchString(bare) }) {
			kept = append(kept, line)
		}
	}
	if st.Unordered {
		slices.Sort(kept)
	}
	return strings.Join(kept, "")
}

func clip(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "…"
	}
	return s
}
