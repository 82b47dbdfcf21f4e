package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/serve"
)

// cmdServe serves MCP on stdin and stdout until the client hangs up or a
// signal ends ctx.
func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := newFlags("serve")
	wsDir := fs.String("workspace", ".", "workspace root")
	auditLog := fs.String("audit", "", `audit log file ("off" to disable)`)
	jsonl := fs.Bool("jsonl", false, "the same tools as JSON lines: {\"id\",\"tool\",\"arguments\"} in, {\"id\",\"is_error\",\"text\",\"result\"} out")
	jsonlAsks := fs.Bool("ask", false, `with --jsonl: ask about commands that need a person with {"ask": …} lines, answered by {"answer": …} lines`)
	maxJobs := fs.Int("max-jobs", serve.DefaultMaxJobs, "how many background commands (shell with background: true) may run at once")
	maxCalls := fs.Int("max-calls", serve.DefaultMaxCalls, "how many requests of the connection are handled at once; the next waits, unread, until one is answered")
	askTimeout := fs.Duration("ask-timeout", serve.DefaultAskTimeout, "how long a person has to answer an approval asked by elicitation")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() > 0 {
		return 0, &usageError{"serve takes no arguments: MCP requests come on stdin"}
	}
	if *jsonlAsks && !*jsonl {
		return 0, &usageError{"--ask goes with --jsonl (an MCP client is asked by elicitation)"}
	}
	if *maxJobs < 1 {
		return 0, &usageError{"--max-jobs must be at least 1"}
	}
	if *maxCalls < 1 {
		return 0, &usageError{"--max-calls must be at least 1"}
	}
	// Fail at start, not at the first call.
	if fi, err := os.Stat(*wsDir); err != nil || !fi.IsDir() {
		return 0, &vtexec.RequestError{Code: codes.BadRequest, Reason: fmt.Sprintf("workspace %s is not a directory", *wsDir),
			Hint: "pass --workspace with an existing project directory"}
	}
	collectLessOften()
	engine := vtexec.NewEngine(vtexec.Config{KeepReady: true})
	defer engine.Close()
	s, err := serve.New(serve.Options{Engine: engine, Workspace: *wsDir, AuditLog: *auditLog, AskTimeout: *askTimeout, MaxJobs: *maxJobs, JSONLAsks: *jsonlAsks, Version: version()})
	if err != nil {
		return 0, err
	}
	if *jsonl {
		return 0, s.ServeJSONL(ctx, stdin, stdout)
	}
	// A bad line is answered with a JSON-RPC error, not the end of the
	// connection.
	r, w := serve.GuardLines(stdin, stdout, *maxCalls)
	return 0, s.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
}

// moduleVersion is vtexec's version as the build recorded it.
