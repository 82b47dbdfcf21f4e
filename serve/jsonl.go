package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/jsonline"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSONLRequest is one line of vtexec serve --jsonl: a tool call.
type JSONLRequest struct {
	ID        json.RawMessage `json:"id"`        // any JSON value, echoed in the response
	Tool      string          `json:"tool"`      // shell or shell_check
	Arguments json.RawMessage `json:"arguments"` // the tool's input, as in MCP
}

// JSONLAsk is a line vtexec serve --jsonl --ask writes when a command
// needs a person: {"ask": {"question": "q1", "text": "…", "choices":
// ["once", "session", "always", "deny"]}}. The harness shows Text to its
// person and sends back {"answer": {"question": "q1", "answer": "once"}};
// no answer within the ask timeout denies.
type JSONLAsk struct {
	Question string   `json:"question"`
	Text     string   `json:"text"`
	Choices  []string `json:"choices"`
}

// JSONLAnswer is a person's answer to a JSONLAsk.
type JSONLAnswer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// JSONLResponse is one line of output: the answer to the request with
// the same id. Result is the tool's structured result (vtexec.Result for
// shell, vtexec.Decision for shell_check), Text what a model is shown,
// IsError true for a refusal or a failed call; Error is set instead when
// the line was no call at all.
type JSONLResponse struct {
	ID      json.RawMessage `json:"id"`
	IsError bool            `json:"is_error"`
	Text    string          `json:"text,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// MarshalJSON writes Error as {"code","reason","hint"}.
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Code   string `json:"code"`
		Reason string `json:"reason"`
		Hint   string `json:"hint"`
	}{e.Code, e.Reason, e.Hint})
}

// maxJSONLLine bounds one request line; maxJSONLCalls the calls that run
// at once (reading waits while that many run).
const (
	maxJSONLLine  = 1 << 20
	maxJSONLCalls = 64
)

// ServeJSONL serves the same tools as MCP, one JSON request a line from
// r, one response a line to w, written as each call ends (so not
// necessarily in order; match them by id). Calls run concurrently on one
// connection: a cd holds for the later calls of the stream. The stream
// ends at EOF, once every call has been answered, or when ctx ends,
// which kills the commands still running. Each line is handed to the MCP
// server through an in-memory client, so both faces behave alike;
// with Options.JSONLAsks a command that needs a person is asked about
// in the stream (JSONLAsk, JSONLAnswer); without, nobody can be asked,
// so an ask is refused with needs_approval.
func (s *Server) ServeJSONL(ctx context.Context, r io.Reader, w io.Writer) error {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var writeErr error
	writeLine := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		if writeErr == nil {
			writeErr = enc.Encode(v)
		}
	}
	write := func(resp JSONLResponse) { writeLine(resp) }
	asks := &jsonlAsks{waiting: map[string]chan string{}}

	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		return err
	}
	c := s.conn(ss)
	var copts *mcp.ClientOptions
	if s.opts.JSONLAsks {
		copts = &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return asks.ask(ctx, req.Params, func(a JSONLAsk) {
				writeLine(struct {
					Ask JSONLAsk `json:"ask"`
				}{a})
			})
		}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "vtexec-jsonl", Version: s.opts.Version}, copts).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	// The read blocks, so it has a goroutine of its own: ctx ends the
	// stream even while it waits for a line.
	type line struct {
		data    []byte
		tooLong bool
		err     error
	}
	lines := make(chan line)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			data, tooLong, err := readLine(br, maxJSONLLine)
			if len(data) > 0 || tooLong {
				select {
				case lines <- line{data: data, tooLong: tooLong}:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				select {
				case lines <- line{err: err}:
				case <-ctx.Done():
				}
				return
			}
		}
	}()

	var wg sync.WaitGroup
	defer c.calls.Wait() // a command whose call was cancelled is dead when the stream ends
	defer wg.Wait()
	slots := make(chan struct{}, maxJSONLCalls)
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil
		case l = <-lines:
		}
		if errors.Is(l.err, io.EOF) {
			asks.close() // no answer can come any more: what waits is denied
			return nil
		}
		if l.err != nil {
			return l.err
		}
		switch {
		case l.tooLong:
			write(badLine(nil, fmt.Sprintf("a request line is longer than %d bytes; it was skipped", maxJSONLLine)))
			continue
		case !utf8.Valid(l.data) || jsonline.LoneSurrogate(l.data):
			write(badLine(nil, "the line is not valid UTF-8 (or escapes a lone surrogate): vtexec runs exactly the bytes it is sent, so it refuses what decoding would replace with U+FFFD"))
			continue
		case depth(l.data) > maxDepth:
			write(badLine(nil, fmt.Sprintf("the line nests deeper than %d levels", maxDepth)))
			continue
		}
		var req JSONLRequest
		if err := json.Unmarshal(l.data, &req); err != nil {
			write(badLine(nil, "not a JSON object: "+err.Error()))
			continue
		}
		var answer struct {
			Answer *JSONLAnswer `json:"answer"`
		}
		if json.Unmarshal(l.data, &answer); answer.Answer != nil {
			if !asks.answer(*answer.Answer) {
				write(badLine(nil, fmt.Sprintf("no question %q is waiting for an answer", answer.Answer.Question)))
			}
			continue
		}
		if req.Tool == "" {
			write(badLine(req.ID, `no "tool"`))
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		wg.Go(func() {
			defer func() { <-slots }()
			write(jsonlCall(ctx, cs, req))
		})
	}
}

func jsonlCall(ctx context.Context, cs *mcp.ClientSession, req JSONLRequest) JSONLResponse {
	args := req.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: req.Tool, Arguments: args})
	if err != nil && ctx.Err() != nil {
		return JSONLResponse{ID: req.ID, IsError: true, Error: &Error{Code: codes.Cancelled,
			Reason: "vtexec serve was stopped before the call ended; its command was killed", Hint: "call again"}}
	}
	if err != nil {
		return JSONLResponse{ID: req.ID, IsError: true, Error: &Error{Code: codes.BadRequest, Reason: err.Error(),
			Hint: `send {"id": 1, "tool": "shell" or "shell_check", "arguments": {"command": "…"}}`}}
	}
	resp := JSONLResponse{ID: req.ID, IsError: res.IsError, Result: res.StructuredContent}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			resp.Text += t.Text
		}
	}
	return resp
}

// jsonlAsks are the questions of a --jsonl stream waiting for answers.
type jsonlAsks struct {
	mu      sync.Mutex
	next    int
	waiting map[string]chan string
	closed  bool // the input ended
}

// close denies every question waiting, and every later one.
func (a *jsonlAsks) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	for id, ch := range a.waiting {
		ch <- ""
		delete(a.waiting, id)
	}
}

// ask writes a question line for an elicitation and waits for its answer
// line, or for ctx (the ask timeout, the call's end) to end it: deny.
func (a *jsonlAsks) ask(ctx context.Context, p *mcp.ElicitParams, write func(JSONLAsk)) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	a.next++
	id := fmt.Sprintf("q%d", a.next)
	ch := make(chan string, 1)
	a.waiting[id] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.waiting, id)
		a.mu.Unlock()
	}()
	write(JSONLAsk{Question: id, Text: p.Message, Choices: answerChoices(p.RequestedSchema)})
	select {
	case ans := <-ch:
		if ans == "" {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": ans}}, nil
	case <-ctx.Done():
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
}

// answer hands an answer line to the question waiting for it, and
// reports whether one was.
func (a *jsonlAsks) answer(ans JSONLAnswer) bool {
	a.mu.Lock()
	ch, ok := a.waiting[ans.Question]
	delete(a.waiting, ans.Question)
	a.mu.Unlock()
	if ok {
		ch <- ans.Answer
	}
	return ok
}

// answerChoices are the answers a question's form offers.
func answerChoices(schema any) []string {
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(schema)
	json.Unmarshal(b, &s)
	return s.Properties["answer"].Enum
}

func badLine(id json.RawMessage, reason string) JSONLResponse {
	return JSONLResponse{ID: id, IsError: true, Error: &Error{Code: codes.BadRequest, Reason: reason,
		Hint: `send one JSON object a line: {"id": 1, "tool": "shell" or "shell_check", "arguments": {"command": "…"}}`}}
}
