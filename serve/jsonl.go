package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSONLRequest is one line of vtexec serve --jsonl: a tool call.
type JSONLRequest struct {
	ID        json.RawMessage `json:"id"`        // any JSON value, echoed in the response
	Tool      string          `json:"tool"`      // shell or shell_check
	Arguments json.RawMessage `json:"arguments"` // the tool's input, as in MCP
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
// nobody can be asked, so an ask is refused with needs_approval.
func (s *Server) ServeJSONL(ctx context.Context, r io.Reader, w io.Writer) error {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		return err
	}
	c := s.conn(ss)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "vtexec-jsonl", Version: s.opts.Version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	var mu sync.Mutex
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var writeErr error
	write := func(resp JSONLResponse) {
		mu.Lock()
		defer mu.Unlock()
		if writeErr == nil {
			writeErr = enc.Encode(resp)
		}
	}

	// The read blocks, so it has a goroutine of its own: ctx ends the
	// stream even while it waits for a line.
	type line struct {
		data []byte
		err  error
	}
	lines := make(chan line)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), maxJSONLLine)
		for sc.Scan() {
			select {
			case lines <- line{data: append([]byte(nil), sc.Bytes()...)}:
			case <-ctx.Done():
				return
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		select {
		case lines <- line{err: err}:
		case <-ctx.Done():
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
			return nil
		}
		if errors.Is(l.err, bufio.ErrTooLong) {
			write(badLine(nil, fmt.Sprintf("a request line is longer than %d bytes; the stream ends here", maxJSONLLine)))
			return l.err
		}
		if l.err != nil {
			return l.err
		}
		var req JSONLRequest
		if err := json.Unmarshal(l.data, &req); err != nil {
			write(badLine(nil, "not a JSON object: "+err.Error()))
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
		return JSONLResponse{ID: req.ID, IsError: true, Error: &Error{Code: "cancelled",
			Reason: "vtexec serve was stopped before the call ended; its command was killed", Hint: "call again"}}
	}
	if err != nil {
		return JSONLResponse{ID: req.ID, IsError: true, Error: &Error{Code: "bad_request", Reason: err.Error(),
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

func badLine(id json.RawMessage, reason string) JSONLResponse {
	return JSONLResponse{ID: id, IsError: true, Error: &Error{Code: "bad_request", Reason: reason,
		Hint: `send one JSON object a line: {"id": 1, "tool": "shell" or "shell_check", "arguments": {"command": "…"}}`}}
}
