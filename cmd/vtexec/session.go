package main

import (
	"context"
	"fmt"
	"io"

	"github.com/vtexec/vtexec"
)

// cmdSession is vtexec session reset: a person lifts a session's
// escalation (see vtexec.CodeSessionEscalated).
func cmdSession(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	if len(args) == 0 || args[0] != "reset" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return 0, &helpRequested{"usage: vtexec session reset [--workspace DIR] [--audit FILE] ID\n\nA session whose commands kept being refused for what signals probing needs a person for every command; reset clears its count and lifts that.\n"}
		}
		return 0, &usageError{"session takes one subcommand: vtexec session reset [--workspace DIR] ID"}
	}
	fs := newFlags("session reset")
	wsDir := fs.String("workspace", ".", "workspace root the session was started in")
	auditLog := fs.String("audit", "", `audit log (JSON lines); "off" for none`)
	if err := parseFlags(fs, args[1:]); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, &usageError{"session reset takes one session ID"}
	}
	id := fs.Arg(0)
	if err := engine().ResetSession(vtexec.Request{Workspace: *wsDir, Session: id, AuditLog: *auditLog}); err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "session %s reset: commands in it are decided as usual again\n", id)
	return 0, nil
}
