package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/display"
)

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("run")
	wsDir := fs.String("workspace", ".", "workspace root")
	cwd := fs.String("cwd", "", "directory the command starts in")
	timeout := fs.Duration("timeout", 0, "kill the command after this long (default: the policy's [limits], else 30s)")
	maxOut := fs.String("max-output", "", "bytes of each stream to keep, head and tail (default: the policy's [limits], else 64KiB)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	session := fs.String("session", "", "keep cwd and session approvals under this id")
	auditLog := fs.String("audit", "", `audit log file ("off" to disable)`)
	askTimeout := fs.Duration("ask-timeout", 2*time.Minute, "how long to wait for a person's answer")
	confinement := fs.String("confinement", "", "kernel confinement: required, best-effort or off (default: the policy's, else required where the kernel has Landlock)")
	noPrompt := fs.Bool("no-prompt", false, "never ask a person: an ask is refused with code needs_approval")
	approve := fs.String("approve", "", "a person's answer given through a harness: once, session, always or network (with --approval-id)")
	approvalID := fs.String("approval-id", "", "the approval_id check --json gave for exactly this command, cwd and session")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if *timeout < 0 {
		return 0, &usageError{"--timeout must be positive"}
	}
	var limit int
	if *maxOut != "" {
		var err error
		if limit, err = execpolicy.ParseSize(*maxOut); err != nil {
			return 0, &usageError{"--max-output: " + err.Error()}
		}
	}
	req, err := commandRequest(fs.Args())
	if err != nil {
		return 0, err
	}
	req.Workspace, req.Cwd, req.Timeout, req.MaxOutput = *wsDir, *cwd, *timeout, limit
	req.Session, req.AuditLog, req.Confinement = *session, *auditLog, *confinement
	switch {
	case (*approve == "") != (*approvalID == ""):
		return 0, &usageError{"--approve and --approval-id go together"}
	case *approve != "":
		answer := vtexec.Answer(*approve)
		if answer != vtexec.AnswerOnce && answer != vtexec.AnswerSession && answer != vtexec.AnswerAlways && answer != vtexec.AnswerNetwork {
			return 0, &usageError{"--approve: once, session, always or network"}
		}
		req.Approver = vtexec.IDApprover{ID: *approvalID, Answer: answer, Session: *session}
	case !*noPrompt:
		req.Approver = terminalApprover(stdin, *askTimeout)
	}
	res, err := engine().Run(ctx, req)
	if err != nil {
		return 0, err
	}
	if *asJSON {
		if err := encodeJSON(stdout, res); err != nil {
			return 0, err
		}
		return res.ExitCode, nil
	}
	if res.Decision.Note != "" {
		fmt.Fprintf(stderr, "vtexec: note: %s\n", display.Text(res.Decision.Note))
	}
	if !res.Decision.Allowed() {
		d := res.Decision
		fmt.Fprintf(stderr, "vtexec: %s %s: %s (hint: %s)\n", d.Decision, d.Code, display.Text(d.Reason), display.Text(d.Hint))
	} else {
		// On a terminal, what the command wrote is shown, not obeyed.
		writeOutput(stdout, res.Stdout)
		writeOutput(stderr, res.Stderr)
		if res.TimedOut {
			fmt.Fprintf(stderr, "vtexec: timed out after %s\n", time.Duration(res.DurationMs)*time.Millisecond)
		}
	}
	printWarnings(stderr, res.Warnings)
	if res.Marker != "" {
		// The cwd marker is the last line of stdout, on a line of its own.
		if res.Stdout != "" && !strings.HasSuffix(res.Stdout, "\n") && res.Decision.Allowed() {
			io.WriteString(stdout, "\n")
		}
		io.WriteString(stdout, res.Marker)
	}
	return res.ExitCode, nil
}

// printWarnings writes one "vtexec: warning:" line per warning.
func printWarnings(w io.Writer, warnings []vtexec.Warning) {
	for _, x := range warnings {
		fmt.Fprintf(w, "vtexec: warning: %s: %s\n", x.Code, display.Text(x.Reason))
	}
}

// writeOutput writes a command's output: as it is, except to a terminal,
// where display.Output makes its control sequences visible.
func writeOutput(w io.Writer, out string) {
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		w.Write(display.Output([]byte(out)))
		return
	}
	io.WriteString(w, out)
}
