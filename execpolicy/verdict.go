package execpolicy

import (
	"fmt"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/plan"
)

// Decision is what happens to a command.
type Decision string

const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

func (d Decision) rank() int {
	switch d {
	case Deny:
		return 2
	case Ask:
		return 1
	}
	return 0
}

// Stable codes for refusals found while parsing and planning. Validators
// and the workspace add their own (unknown_flag, outside_workspace, ...).
const (
	CodeParse        = codes.ParseError
	CodeCheckFailed  = codes.CheckFailed
	CodeTooLong      = codes.TooLong
	CodeSubstitution = codes.Substitution
	CodeExpansion    = codes.Expansion
	CodeSubshell     = codes.Subshell
	CodeControlFlow  = codes.ControlFlow
	CodeRedirect     = codes.Redirect
	CodeBackground   = codes.Background
	CodeAssignment   = codes.Assignment
	CodeNotAllowed   = codes.NotAllowed
	// CodeWorkspaceProgram asks about a program that lies in the
	// workspace (./bin/tool): it runs confined, once or for a session.
	CodeWorkspaceProgram = codes.WorkspaceProgram
	CodeForbiddenProgram = codes.ForbiddenProgram
	// CodeShellBuiltin refuses a shell builtin (export, source, set …):
	// a form vtexec has no shell to run, not a sign of probing.
	CodeShellBuiltin  = codes.ShellBuiltin
	CodeBadUsage      = codes.BadUsage
	CodeForbiddenFlag = codes.ForbiddenFlag
	CodeInlineCode    = codes.InlineCode
)

// Verdict is the decision on a whole command string. For Ask and Deny,
// Code, Reason and Hint say why and what to do instead. Plan is set when
// the string parsed into commands, even if some part was refused, so the
// caller can show every part; only an Allow plan may be run.
type Verdict struct {
	Decision Decision
	Code     string
	Reason   string
	Hint     string
	// NeverAlways marks an ask that a person may approve once or for the
	// session, but never always (inline code, shells, wrappers).
	NeverAlways bool
	Plan        *plan.Plan
	// Parts has one entry per simple command, and one more for the
	// command each wrapper runs, in source order, each with its own
	// decision. Policy rules and approvals work on parts.
	Parts []Part
}

// Part is the decision on one simple command, or on the command a wrapper
// runs (timeout 5 make test has a part for timeout and one for make).
type Part struct {
	Argv        []string
	Program     string // absolute path on the trusted PATH; empty if not found or a builtin
	Decision    Decision
	Code        string
	Reason      string
	Hint        string
	NeverAlways bool
	// Dir is the directory the command runs in, when known.
	Dir string
	// Cmd is the index, in plan order, of the command the part belongs
	// to (a wrapper's inner command belongs to the wrapper's).
	Cmd int
}

func partOf(argv []string, program string, v *Verdict) Part {
	if v == nil {
		return Part{Argv: argv, Program: program, Decision: Allow}
	}
	return Part{Argv: argv, Program: program, Decision: v.Decision, Code: v.Code, Reason: v.Reason, Hint: v.Hint, NeverAlways: v.NeverAlways}
}

// Strictest returns the strictest decision of parts as a Verdict (the
// first of equal rank wins), or an Allow verdict.
func Strictest(parts []Part) *Verdict {
	var worst *Verdict
	for _, p := range parts {
		if p.Decision == Allow {
			continue
		}
		worst = merge(worst, &Verdict{Decision: p.Decision, Code: p.Code, Reason: p.Reason, Hint: p.Hint, NeverAlways: p.NeverAlways})
	}
	if worst == nil {
		return &Verdict{Decision: Allow}
	}
	return worst
}

func deny(code, hint, format string, args ...any) *Verdict {
	return &Verdict{Decision: Deny, Code: code, Reason: fmt.Sprintf(format, args...), Hint: hint}
}

// merge keeps the stricter of two verdicts; on a tie, the first.
func merge(cur, next *Verdict) *Verdict {
	if cur == nil || next.Decision.rank() > cur.Decision.rank() {
		return next
	}
	return cur
}
