package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool registers a tool like mcp.AddTool, but puts out into the
// structured content itself instead of having the SDK validate it
// against the output schema on every call (a third of a shell_check
// call's cost). The schema is still advertised, and the tests check
// each tool's answers against it (TestStructuredContentMatchesSchema).
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)) error {
	if t.OutputSchema == nil {
		schema, err := jsonschema.For[Out](nil)
		if err != nil {
			return err
		}
		t.OutputSchema = schema
	}
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, _ any, err error) {
		defer recoverCall(t.Name, &err)
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, nil, err
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.InputRequests != nil {
			return res, nil, nil // a question: no content goes with it
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return nil, nil, err
		}
		res.StructuredContent = json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		return res, nil, nil
	})
	return nil
}

// recoverCall turns a fault of vtexec's own in one call (a panic on the
// handler's goroutine) into that call's error, as net/http does for a
// request: the other sessions on the server go on. The fault and its
// stack go to standard error. A panic on another goroutine still ends
// the process.
func recoverCall(tool string, err *error) {
	p := recover()
	if p == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "vtexec serve: the %s call failed: %v\n%s", tool, p, debug.Stack())
	*err = toError(fmt.Errorf("vtexec failed on this call: %v", p))
}
