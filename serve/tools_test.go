package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every tool's structured content validates against the output schema
// it advertises, in every shape it takes: allowed, refused, output that
// is not UTF-8, a background job running, stopped and listed.
func TestStructuredContentMatchesSchema(t *testing.T) {
	s, ws := newServer(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "bin.dat"), []byte{0xff, 0xfe, 'x', '\n'}, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "l"), []byte("line\n"), 0o644))
	cs := connect(t, s, nil)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		require.NotNil(t, tool.OutputSchema, tool.Name)
		b, err := json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		var sc jsonschema.Schema
		require.NoError(t, json.Unmarshal(b, &sc))
		r, err := sc.Resolve(nil)
		require.NoError(t, err, tool.Name)
		schemas[tool.Name] = r
	}
	id := startJob(t, cs, "tail -f l")
	readUntil(t, cs, id, "line", 5e9)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{ToolShell, map[string]any{"command": "cat l"}},
		{ToolShell, map[string]any{"command": "cat bin.dat"}},
		{ToolShell, map[string]any{"command": "cat /etc/passwd"}},
		{ToolShell, map[string]any{"command": "rm l"}},
		{ToolCheck, map[string]any{"command": "ls"}},
		{ToolCheck, map[string]any{"command": "curl x"}},
		{ToolList, map[string]any{}},
		{ToolRead, map[string]any{"id": id}},
		{ToolWrite, map[string]any{"id": id, "input": "x\n"}},
		{ToolKill, map[string]any{"id": id}},
		{ToolRead, map[string]any{"id": id}},
		{ToolList, map[string]any{}},
	}
	for _, c := range calls {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		require.NoError(t, err)
		require.NotNil(t, res.StructuredContent, "%s %v", c.tool, c.args)
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(b, &v))
		assert.NoError(t, schemas[c.tool].Validate(v), "%s %v: %s", c.tool, c.args, b)
	}
}

// A fault of vtexec's own in one call fails that call with a structured
// error, and the server answers the next one: a panic on a handler's
// goroutine does not end the server and its other sessions.
func TestAFaultingCallFailsAloneAndTheServerGoesOn(t *testing.T) {
	s, _ := newServer(t)
	type in struct{}
	type out struct {
		OK bool `json:"ok"`
	}
	require.NoError(t, addTool(s.mcp, &mcp.Tool{Name: "fault", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
			var m map[string]int
			m["x"]++ // a nil map: a runtime panic
			return nil, out{OK: true}, nil
		}))
	cs := connect(t, s, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.NotEmpty(t, res.Content)
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "internal_error")
	assert.Contains(t, text, "nil map")
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolCheck, Arguments: map[string]any{"command": "ls"}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
}
