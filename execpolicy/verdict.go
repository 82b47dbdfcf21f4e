package execpolicy

import (
	"fmt"

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
	CodeParse            = "parse_error"
	CodeTooLong          = "too_long"
	CodeSubstitution     = "substitution"
	CodeExpansion        = "expansion"
	CodeSubshell         = "subshell"
	CodeControlFlow      = "control_flow"
	CodeRedirect         = "redirect"
	CodeBackground       = "background"
	CodeAssignment       = "assignment"
	CodeNotAllowed       = "not_allowed"
	CodeForbiddenProgram = "forbidden_program"
	CodeBadUsage         = "bad_usage"
	CodeForbiddenFlag    = "forbidden_flag"
	CodeInlineCode       = "inline_code"
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
}

func (v *Verdict) Error() string { return fmt.Sprintf("%s: %s: %s", v.Decision, v.Code, v.Reason) }

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
