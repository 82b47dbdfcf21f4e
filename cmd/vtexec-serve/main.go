// Command vtexec-serve is vtexec's MCP server: what vtexec serve runs,
// installed beside vtexec. It serves vtexec's tools over MCP (or JSON
// lines with --jsonl) on stdin and stdout until the client hangs up or
// SIGINT or SIGTERM ends it. It takes vtexec serve's flags (vtexec
// serve --help).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/internal/buildinfo"
	"github.com/vtexec/vtexec/internal/display"
	"github.com/vtexec/vtexec/internal/gcpace"
	"github.com/vtexec/vtexec/internal/inherited"
	"github.com/vtexec/vtexec/internal/serveopts"
	"github.com/vtexec/vtexec/serve"
)

// exitUsage is the status of a server that could not start, as vtexec's.
const exitUsage = 2

func main() {
	inherited.CloseOnExec() // what the caller left open is not the programs'
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		msg := err.Error()
		var re *vtexec.RequestError
		if errors.As(err, &re) && re.Hint != "" {
			msg += " (hint: " + re.Hint + ")"
		}
		fmt.Fprintf(os.Stderr, "vtexec serve: %s\n", display.Lines(msg))
		os.Exit(exitUsage)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Before the flags: another build may take other ones.
	if err := sameBuildAsCaller(); err != nil {
		return err
	}
	fs := flag.NewFlagSet("vtexec serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := serveopts.Define(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, "usage: vtexec-serve [flags]   (what vtexec serve runs: vtexec serve --help)\nflags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
		}
		return err
	}
	if err := o.Validate(fs.Args()); err != nil {
		return err
	}
	if err := o.CheckWorkspace(); err != nil {
		return err
	}
	useSiblingHelper()
	gcpace.LessOften()
	engine := vtexec.NewEngine(vtexec.Config{KeepReady: true})
	defer engine.Close()
	s, err := serve.New(serve.Options{Engine: engine, Workspace: o.Workspace, AuditLog: o.AuditLog, AskTimeout: o.AskTimeout,
		MaxJobs: o.MaxJobs, JSONLAsks: o.JSONLAsks, Version: buildinfo.Version()})
	if err != nil {
		return err
	}
	if o.JSONL {
		return s.ServeJSONL(ctx, stdin, stdout)
	}
	// A bad line is answered with a JSON-RPC error, not the end of the
	// connection.
	r, w := serve.GuardLines(stdin, stdout, o.MaxCalls)
	return s.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
}
