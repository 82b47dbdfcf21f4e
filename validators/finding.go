package validators

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/workspace"
)

// Stable codes for findings. Path codes come from the workspace package.
const (
	CodeUnknownFlag   = codes.UnknownFlag
	CodeForbiddenFlag = codes.ForbiddenFlag
	CodeBadUsage      = codes.BadUsage
	CodeForbidden     = codes.ForbiddenProgram
)

// Finding is why a command is not simply allowed. A Finding with Ask set
// needs a person's approval; any other Finding is a refusal.
type Finding struct {
	Ask    bool
	Code   string
	Reason string
	Hint   string
	// NeverAlways: a person may approve it once or for a session only.
	NeverAlways bool
}

func (f *Finding) Error() string { return f.Code + ": " + f.Reason }

func refuse(code, hint, format string, args ...any) *Finding {
	return &Finding{Code: code, Reason: fmt.Sprintf(format, args...), Hint: hint}
}

// pathFinding turns a workspace error about operand arg into a Finding.
func pathFinding(program, arg string, err error) *Finding {
	var be *workspace.BoundaryError
	if errors.As(err, &be) {
		return boundaryFinding(be, program+": "+be.Error())
	}
	return refuse(string(workspace.Invalid), "use a plain path inside the workspace", "%s: %q: %v", program, arg, err)
}

// boundaryFinding is the Finding for a workspace error: a refusal, or for
// agent and editor configuration an ask a person may answer once or for
// a session.
func boundaryFinding(be *workspace.BoundaryError, reason string) *Finding {
	ask := be.Code == workspace.AskFirst
	return &Finding{Ask: ask, NeverAlways: ask, Code: string(be.Code), Reason: reason, Hint: be.Hint()}
}

func quoteList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, " ")
}

// ErrUnlisted is what a validator of a developer tool returns for a use
// it does not allow by itself (go build, npm install): the command is
// then treated as a program not on the allowlist, so a person decides,
// with the developer-tool rules applied.
var ErrUnlisted = errors.New("not a form the allowlist covers")

// CodeCheckLimit refuses a command whose check spent the request's
// budget of directory entries or time (see workspace.Budget).
const CodeCheckLimit = codes.CheckLimit

// budgetFinding refuses for a spent budget; other errors pass.
func budgetFinding(err error) error {
	var be *workspace.BudgetError
	if !errors.As(err, &be) {
		return err
	}
	return refuse(CodeCheckLimit, "name smaller directories, or fewer of them, in one request",
		"%v: vtexec checks every entry below a directory a command writes or follows links in, and bounds that work for each request", be)
}
