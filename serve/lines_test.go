package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rpcLine is one line the server wrote.
type rpcLine struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// stdioServer serves s over a guarded pipe pair and returns the writer of
// its input and a reader of its output lines.
func stdioServer(t *testing.T, s *Server) (io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r, w := GuardLines(inR, outW, 0)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), &mcp.IOTransport{Reader: r, Writer: w}) }()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the server did not end")
		}
		outW.Close()
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return inW, sc
}

func nextLine(t *testing.T, sc *bufio.Scanner) rpcLine {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		if sc.Scan() {
			lines <- sc.Text()
		} else {
			close(lines)
		}
	}()
	select {
	case l, ok := <-lines:
		require.True(t, ok, "the server stopped answering")
		var m rpcLine
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
	return rpcLine{}
}

// initializedServer is a server over a guarded pipe pair whose session
// is initialized (request id 0): a writer of its input lines and a
// reader of its output lines.
func initializedServer(t *testing.T) (write func(line string), out *bufio.Scanner) {
	s, _ := newServer(t)
	in, out := stdioServer(t, s)
	write = func(line string) {
		_, err := io.WriteString(in, line+"\n")
		require.NoError(t, err)
	}
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	require.NotEmpty(t, nextLine(t, out).Result)
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return write, out
}

// Every malformed line gets a JSON-RPC error answer and the connection
// goes on: a call after them all is answered.
func TestABadLineDoesNotEndTheServer(t *testing.T) {
	write, out := initializedServer(t)

	bad := map[string]int{
		`{"jsonrpc":"2.0","id":2,"method":"tools/li`: rpcParseError,
		`not json at all`: rpcParseError,
		"\v":              rpcParseError, // no JSON whitespace: the SDK's decoder ended the connection
		"\u0085\u00a0":    rpcParseError,
		`{}`:              rpcInvalidRequest,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`:  rpcInvalidRequest,
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"x\u0000\"}": rpcParseError,
		strings.Repeat("[", 200) + strings.Repeat("]", 200):     rpcInvalidRequest,
		`[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`:      rpcInvalidRequest,
		`"a string"`: rpcInvalidRequest,
		`{"jsonrpc":"1.0","id":5,"method":"tools/list"}`:                                                                 rpcInvalidRequest,
		`{"jsonrpc":"2.0","id":6}`:                                                                                       rpcInvalidRequest,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"x\":\"\xff\"}}":                           rpcParseError,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"shell","arguments":{"command":"echo \ud800"}}}`: rpcParseError,
		`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", MaxLine) + `"}}`:         rpcInvalidRequest,
		`{"jsonrpc":"2.0","id":1e999,"method":"tools/list"}`:                                                             rpcInvalidRequest,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`:                                                               rpcInvalidRequest,
		`{"jsonrpc":"2.0","id":12,"error":{"code":1.5,"message":"x"}}`:                                                   rpcInvalidRequest,
	}
	for line, code := range bad {
		write(line)
		got := nextLine(t, out)
		require.NotNil(t, got.Error, "%.80q got no error", line)
		assert.Equal(t, code, got.Error.Code, "%.80q: %s", line, got.Error.Message)
	}

	// A surrogate pair is one character, not a lone surrogate.
	write(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"shell_check","arguments":{"command":"echo \ud83d\ude00"}}}`)
	got := nextLine(t, out)
	assert.Nil(t, got.Error)
	assert.JSONEq(t, `10`, string(got.ID))

	write(`{"jsonrpc":"2.0","id":11,"method":"tools/list"}`)
	got = nextLine(t, out)
	assert.Nil(t, got.Error)
	assert.Contains(t, string(got.Result), `"shell"`)
}

// A message with JSON whitespace around it is answered, and the
// connection goes on: the SDK's reader ended it when a message was
// followed by anything but the line's end.
func TestSpaceAroundAMessageIsAnswered(t *testing.T) {
	write, out := initializedServer(t)
	for i, line := range []string{
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\t",
		`{"jsonrpc":"2.0","method":"notifications/x"}  `,
		" \t{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} \t ",
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\t",
		" \t ",
	} {
		write(line)
		id := 100 + i
		write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
		for {
			got := nextLine(t, out)
			require.Nil(t, got.Error, "%q: %s", line, got.Error)
			if string(got.ID) == fmt.Sprint(id) {
				break
			}
		}
	}
}

// FuzzGuardLines: whatever a line holds, the guard either passes it on as
// a well-formed message or answers it, and never gives the SDK a line
// that is not valid UTF-8 JSON.
func FuzzGuardLines(f *testing.F) {
	for _, s := range append([]string{`{}`, `[]`, `{"jsonrpc":"2.0","id":1,"method":"x"}`, "\xff", `"\ud800"`, `{"a":"\ud83d\ude00"}`, `[[[[`, " {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\t"}, messageSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") {
			return
		}
		// The one-pass reading of plain messages and of answers decides
		// as the member-by-member one does.
		trimmed := bytes.Trim([]byte(line), jsonSpace)
		if id, ok := plainMessage(trimmed); ok {
			why, code, full := readMessage(trimmed)
			require.Equal(t, "", why)
			require.Zero(t, code)
			require.Equal(t, string(full), string(id))
		}
		require.Equal(t, string(responseIDByDecoding([]byte(line))), string(responseID([]byte(line))))
		why, _, _ := checkMessage([]byte(line), false)
		if why == "" && len(strings.TrimSpace(line)) > 0 {
			require.True(t, json.Valid([]byte(line)))
			// As the SDK decodes it.
			var v sdkWire
			require.NoError(t, json.Unmarshal([]byte(line), &v))
			require.Equal(t, "2.0", v.VersionTag)
			// What the SDK is given is one message followed by the
			// line's end, which its reader requires.
			msg := forSDK([]byte(line))
			dec := json.NewDecoder(bytes.NewReader(append(msg, '\n')))
			var raw json.RawMessage
			require.NoError(t, dec.Decode(&raw))
			require.Equal(t, int64(len(msg)), dec.InputOffset(), "%q", line)
		}
	})
}

// messageSeeds are lines near plainMessage's edges: each of its rules
// broken once.
var messageSeeds = []string{
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shell","arguments":{"command":"ls"}}}`,
	`{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","id":7,"result":{},"method":"x"}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":1.5}}`,
	`{"jsonrpc":"2.0","Id":7,"method":"x"}`, `{"jsonrpc":"2.0","id":7,"method":"x","Params":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":"x","params":{},"params":[]}`, `{"jsonrpc":"2.0","id":7,"id":8,"method":"x"}`,
	`{"jsonrpc":"2\u002e0","id":7,"method":"x"}`, `{"jsonrpc":"2.0","id":7,"method":"\u0078"}`, `{"jsonrpc":"2.0","id":7,"method":""}`,
	`{"jsonrpc":2,"id":7,"method":"x"}`, `{"jsonrpc":null,"id":7,"method":"x"}`, `{"jsonrpc":"2.0","id":null,"method":"x"}`,
	`{"jsonrpc":"2.0","id":7.5,"method":"x"}`, `{"jsonrpc":"2.0","id":1e400,"method":"x"}`, `{"jsonrpc":"2.0","id":18014398509481984,"method":"x"}`,
	`{"jsonrpc":"2.0","id":-0,"method":"x"}`, `{"jsonrpc":"2.0","id":true,"method":"x"}`, `{"jsonrpc":"2.0","id":[1],"method":"x"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":7}`, `{"jsonrpc":"2.0","id":7}`,
	`{"jsonrpc":"2.0","i\u0064":7,"result":{}}`, `{"jsonrpc":"2.0","id":7,"result":"\udc00"}`, `{"jsonrpc":"2.0","ID":7,"result":{}}`,
}

// responseIDByDecoding is responseID as encoding/json alone reads it.
func responseIDByDecoding(line []byte) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil || len(m.Method) > 0 {
		return nil
	}
	return m.ID
}

// A request beyond the bound is not passed on until one in flight is
// answered; a line that is no answer to it (a request of the server's
// own with the same id, an answer to another id) makes no room.
func TestGuardHoldsRequestsBeyondItsBound(t *testing.T) {
	inR, inW := io.Pipe()
	var out strings.Builder
	r, w := GuardLines(inR, &out, 2)
	lines := bufio.NewReader(r)
	go func() {
		for id := 1; id <= 3; id++ {
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
		}
	}()
	for id := 1; id <= 2; id++ {
		line, err := lines.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, fmt.Sprintf(`"id":%d`, id))
	}
	third := make(chan string, 1)
	go func() {
		line, _ := lines.ReadString('\n')
		third <- line
	}()
	for _, notAnAnswer := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"roots/list"}` + "\n",
		`{"jsonrpc":"2.0","id":9,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n",
	} {
		w.Write([]byte(notAnAnswer))
	}
	select {
	case line := <-third:
		t.Fatalf("passed on with two requests unanswered: %s", line)
	case <-time.After(50 * time.Millisecond):
	}
	// An answer encoding/json reads ("i\u0064" is "id") and one of the
	// ids counted, its members in another order.
	w.Write([]byte(`{"result":{},"i\u0064":2,"jsonrpc":"2.0"}` + "\n"))
	select {
	case line := <-third:
		require.Contains(t, line, `"id":3`)
	case <-time.After(10 * time.Second):
		t.Fatal("the third request was not passed on after an answer")
	}
	inW.Close()
}

// FuzzServeLines: over one connection, every line gets an answer when it
// is not a well-formed message (an error naming the problem), and the
// connection stays up: a ping sent after it is answered.
func FuzzServeLines(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"jsonrpc":"2.0","id":1,"method":"x"}`, "\xff", `"\ud800"`, `[[[[`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","method":"notifications/x"}`, `{"jsonrpc":"2.0","id":3,"result":{}}`} {
		f.Add(s)
	}
	s := fuzzServer(f)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r, w := GuardLines(inR, outW, 0)
	go s.Run(context.Background(), &mcp.IOTransport{Reader: r, Writer: w})
	answers := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			answers <- sc.Text()
		}
		close(answers)
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`+"\n")
	<-answers
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	probe := 0
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") || strings.Contains(line, "tools/call") {
			return // one line; no command run
		}
		probe++
		id := fmt.Sprintf(`"probe-%d"`, probe)
		why, _, _ := checkMessage([]byte(line), false)
		_, err := io.WriteString(inW, line+"\n"+`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`+"\n")
		require.NoError(t, err)
		errored := false
		for {
			select {
			case a, ok := <-answers:
				require.True(t, ok, "the server stopped answering after %q", line)
				var m rpcLine
				require.NoError(t, json.Unmarshal([]byte(a), &m), a)
				if string(m.ID) == id {
					require.Nil(t, m.Error, a)
					if why != "" && strings.TrimSpace(line) != "" {
						require.True(t, errored, "no error answer for %q (%s)", line, why)
					}
					return
				}
				if m.Error != nil {
					errored = true
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no answer to the ping after %q", line)
			}
		}
	})
}

// What the guard spends on each message, both ways: a tools/call
// request and a shell_check answer.
var (
	benchRequest = []byte(`{"jsonrpc":"2.0","id":57,"method":"tools/call","params":{"name":"shell_check","arguments":{"command":"cat file.txt"},"_meta":{"progressToken":57}}}`)
	benchAnswer  = []byte(`{"jsonrpc":"2.0","id":57,"result":{"content":[{"type":"text","text":"` + strings.Repeat("allow: cat reads file.txt inside the workspace. ", 30) + `"}],"structuredContent":{"decision":"allow"}}}`)
)

func BenchmarkGuardRequest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if why, _, _ := checkMessage(benchRequest, false); why != "" {
			b.Fatal(why)
		}
	}
}

func BenchmarkGuardAnswer(b *testing.B) {
	f := newInFlight(4)
	b.ReportAllocs()
	for b.Loop() {
		f.admit([]byte("57"))
		f.answered(benchAnswer)
		if len(f.ids) != 0 {
			b.Fatal("the answer was not counted")
		}
	}
}

// Every answered request makes room for the next, whatever form its id
// was sent in: the SDK answers 1.0 and 1e0 as 1, "\u0061" as "a", and a
// request counted under one form and answered under another held its
// room for good — after DefaultMaxCalls of them the server read nothing
// more.
func TestEveryIDFormIsUncountedByItsAnswer(t *testing.T) {
	write, out := initializedServer(t)
	forms := []func(int) (sent, answered string){
		func(n int) (string, string) { return fmt.Sprintf("%d.0", n), fmt.Sprint(n) },
		func(n int) (string, string) { return fmt.Sprintf("%de0", n), fmt.Sprint(n) },
		func(n int) (string, string) { return fmt.Sprintf("%d.00e+0", n), fmt.Sprint(n) },
		func(n int) (string, string) { return fmt.Sprintf(`"\u0061%d"`, n), fmt.Sprintf(`"a%d"`, n) },
		func(n int) (string, string) { return fmt.Sprintf(`"x\/%d"`, n), fmt.Sprintf(`"x/%d"`, n) },
	}
	for n := 1; n <= 3*DefaultMaxCalls; n++ {
		sent, answered := forms[n%len(forms)](n)
		write(`{"jsonrpc":"2.0","id":` + sent + `,"method":"ping"}`)
		got := nextLine(t, out)
		require.Nil(t, got.Error)
		require.JSONEq(t, answered, string(got.ID), "request %d", n)
	}
	write(`{"jsonrpc":"2.0","id":-0,"method":"ping"}`)
	assert.JSONEq(t, `0`, string(nextLine(t, out).ID))
}

// FuzzFlightKey: a request the guard counts is uncounted by the answer
// the SDK writes for it, whatever form its id was sent in.
func FuzzFlightKey(f *testing.F) {
	for _, id := range []string{`1`, `1.0`, `1e0`, `-0`, `9007199254740992`, `"a"`, `"\u0061"`, `"\/"`, `"\ud83d\ude00"`, `"é"`, `10.00e-1`} {
		f.Add(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	}
	for _, s := range messageSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		why, _, id := checkMessage([]byte(line), false)
		if why != "" || id == nil {
			return
		}
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		require.NoError(t, err)
		req, ok := msg.(*jsonrpc.Request)
		require.True(t, ok)
		answer, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
		require.NoError(t, err)
		require.Equal(t, flightKey(id), flightKey(responseID(answer)), "sent %s, answered %s", id, answer)
	})
}
