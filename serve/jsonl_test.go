package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type jsonlAnswer struct {
	ID      any            `json:"id"`
	IsError bool           `json:"is_error"`
	Text    string         `json:"text"`
	Result  map[string]any `json:"result"`
	Error   *struct {
		Code, Reason, Hint string
	} `json:"error"`
}

func TestJSONLAnswersEveryLineByID(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("jsonl-marker\n"), 0o644))
	in := strings.Join([]string{
		`{"id":1,"tool":"shell","arguments":{"command":"cat hello.txt"}}`,
		`{"id":"two","tool":"shell_check","arguments":{"command":"$(echo ls) -l"}}`,
		`{"id":3,"tool":"shell","arguments":{"command":"cat /etc/passwd"}}`,
		`not json`,
		`{"id":5}`,
		`{"id":6,"tool":"rm","arguments":{}}`,
		`{"id":7,"tool":"shell","arguments":{"cmd":"ls"}}`,
	}, "\n") + "\n"
	var out strings.Builder
	require.NoError(t, s.ServeJSONL(context.Background(), strings.NewReader(in), &out))

	got := map[string]jsonlAnswer{}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 7, out.String())
	for _, l := range lines {
		var a jsonlAnswer
		require.NoError(t, json.Unmarshal([]byte(l), &a), l)
		b, _ := json.Marshal(a.ID)
		got[string(b)] = a
	}
	assert.False(t, got["1"].IsError)
	assert.Equal(t, "jsonl-marker\n", got["1"].Result["stdout"])
	assert.Contains(t, got["1"].Text, "exit code: 0\nstdout:\njsonl-marker\n")

	assert.False(t, got[`"two"`].IsError)
	assert.Equal(t, "substitution", got[`"two"`].Result["code"])

	assert.True(t, got["3"].IsError)
	assert.Contains(t, got["3"].Text, "refused: deny outside_workspace: ")

	require.NotNil(t, got["null"].Error, "the line that is not JSON")
	assert.Equal(t, "bad_request", got["null"].Error.Code)
	assert.Contains(t, got["null"].Error.Hint, `"tool": "shell"`)
	require.NotNil(t, got["5"].Error)
	assert.Equal(t, `no "tool"`, got["5"].Error.Reason)
	require.NotNil(t, got["6"].Error)
	assert.Contains(t, got["6"].Error.Reason, "rm")
	assert.True(t, got["7"].IsError, "arguments are checked against the schema")
}

// One stream is one session: a cd holds for the lines after it.
func TestJSONLCdHoldsForTheStream(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeJSONL(context.Background(), inR, outW); outW.Close() }()
	answers := bufio.NewScanner(outR)
	send := func(line string) jsonlAnswer {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
		require.True(t, answers.Scan())
		var a jsonlAnswer
		require.NoError(t, json.Unmarshal(answers.Bytes(), &a))
		return a
	}
	a := send(`{"id":1,"tool":"shell","arguments":{"command":"cd sub"}}`)
	assert.Equal(t, filepath.Join(ws, "sub"), a.Result["cwd"])
	a = send(`{"id":2,"tool":"shell","arguments":{"command":"pwd"}}`)
	assert.Equal(t, filepath.Join(ws, "sub")+"\n", a.Result["stdout"])
	inW.Close()
	require.NoError(t, <-done)
}

// Ending the stream's context (SIGTERM) kills what runs and returns.
func TestJSONLStopsOnContext(t *testing.T) {
	s, ws := newServer(t)
	name := "stop-" + filepath.Base(ws) + ".log"
	require.NoError(t, os.WriteFile(filepath.Join(ws, name), nil, 0o644))
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- s.ServeJSONL(ctx, inR, &out) }()
	_, err := io.WriteString(inW, `{"id":1,"tool":"shell","arguments":{"command":"tail -f `+name+`"}}`+"\n")
	require.NoError(t, err)
	for len(running(t, name)) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end")
	}
	assert.Empty(t, running(t, name))
	assert.Contains(t, out.String(), `"code":"cancelled"`)
}

// With asks on, a command that needs a person is asked about in the
// stream: once runs it, deny refuses it, and an answer to no question
// is a bad line.
func TestJSONLAsksTheHarness(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b\n"), 0o644))
	s, err := New(Options{Workspace: ws, AuditLog: "off", JSONLAsks: true, AskTimeout: 10 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeJSONL(context.Background(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	next := func() map[string]any {
		require.True(t, lines.Scan(), "a line")
		var m map[string]any
		require.NoError(t, json.Unmarshal(lines.Bytes(), &m), lines.Text())
		return m
	}
	send := func(s string) { _, err := io.WriteString(inW, s+"\n"); require.NoError(t, err) }

	send(`{"id":1,"tool":"shell","arguments":{"command":"rm a.txt"}}`)
	ask := next()["ask"].(map[string]any)
	assert.Contains(t, ask["text"], "rm a.txt")
	assert.Contains(t, ask["choices"], "once")
	send(`{"answer":{"question":"` + ask["question"].(string) + `","answer":"once"}}`)
	resp := next()
	assert.Equal(t, false, resp["is_error"], resp)
	assert.NoFileExists(t, filepath.Join(ws, "a.txt"))

	send(`{"id":2,"tool":"shell","arguments":{"command":"rm b.txt"}}`)
	ask = next()["ask"].(map[string]any)
	send(`{"answer":{"question":"` + ask["question"].(string) + `","answer":"deny"}}`)
	resp = next()
	assert.Equal(t, true, resp["is_error"], resp)
	assert.FileExists(t, filepath.Join(ws, "b.txt"))

	send(`{"answer":{"question":"q99","answer":"once"}}`)
	resp = next()
	assert.Contains(t, resp["error"].(map[string]any)["reason"], "no question")

	// The input ends while a question waits: it is denied at once.
	send(`{"id":3,"tool":"shell","arguments":{"command":"rm b.txt"}}`)
	next() // the ask
	inW.Close()
	resp = next()
	assert.Equal(t, true, resp["is_error"], resp)
	assert.FileExists(t, filepath.Join(ws, "b.txt"))
	require.NoError(t, <-done)
}

// A line over the cap, one that is not UTF-8 and one that nests too
// deeply are each answered, and the stream goes on.
func TestJSONLBadLinesDoNotEndTheStream(t *testing.T) {
	s, _ := newServer(t)
	in := strings.Join([]string{
		`{"id":1,"tool":"shell_check","arguments":{"command":"` + strings.Repeat("x", maxJSONLLine) + `"}}`,
		"{\"id\":2,\"tool\":\"shell_check\",\"arguments\":{\"command\":\"echo \xff\"}}",
		`{"id":3,"tool":"shell_check","arguments":{"command":"echo \udc00"}}`,
		strings.Repeat("[", 100) + strings.Repeat("]", 100),
		`{"id":5,"tool":"shell_check","arguments":{"command":"ls"}}`,
	}, "\n") + "\n"
	var out strings.Builder
	require.NoError(t, s.ServeJSONL(context.Background(), strings.NewReader(in), &out))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 5, out.String())
	errs := 0
	for _, l := range lines {
		var a jsonlAnswer
		require.NoError(t, json.Unmarshal([]byte(l), &a), l)
		if a.Error != nil {
			errs++
			assert.Equal(t, "bad_request", a.Error.Code)
		} else {
			assert.Equal(t, float64(5), a.ID, "only the good line is a call")
		}
	}
	assert.Equal(t, 4, errs)
}

// FuzzServeJSONL: whatever one line of serve --jsonl holds, it gets one
// answer line and the stream goes on: a shell_check after it is answered.
func FuzzServeJSONL(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"id":1}`, "\xff", `{"id":"\ud800"}`, "\v", `{"answer":{}}`, `{"id":2,"tool":"nope"}`, ``} {
		f.Add(s)
	}
	s := fuzzServer(f)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") || strings.Contains(line, `"shell"`) || strings.Contains(line, "answer") {
			return // one line; no command run; no answer to a question nobody asked
		}
		probe := `{"id":"probe","tool":"shell_check","arguments":{"command":"ls"}}`
		var out strings.Builder
		require.NoError(t, s.ServeJSONL(context.Background(), strings.NewReader(line+"\n"+probe+"\n"), &out))
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		want := 2
		if strings.TrimRight(line, "\r") == "" {
			want = 1 // an empty line is skipped
		}
		require.Len(t, lines, want, "one answer a line: %q", out.String())
		// Calls run at once: answers come in any order, each with its id.
		probed := false
		for _, l := range lines {
			var a jsonlAnswer
			require.NoError(t, json.Unmarshal([]byte(l), &a), l)
			if a.ID == "probe" {
				require.Nil(t, a.Error, l)
				probed = true
			}
		}
		require.True(t, probed, "no answer to the probe: %q", out.String())
	})
}
