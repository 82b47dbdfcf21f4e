// Command noopmcp is an MCP server over stdio with one tool, "noop", that
// does nothing: the SDK's own cost of a tool call, which the serve
// benchmarks compare vtexec serve against.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type in struct {
	Command string `json:"command"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
