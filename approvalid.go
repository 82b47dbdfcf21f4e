package vtexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/vtexec/vtexec/internal/approvalid"
)

// Approval ids let a harness approve a command for its person: check
// --json hands out an id for the exact plan that asks (session, cwd,
// every command's argv and redirects, the rules session or always would
// record); the harness shows the command, and on a yes runs it with
// --approve ANSWER --approval-id ID. The id is a MAC keyed by a secret in
// vtexec's state directory, which no command can read, so no command can
// mint one; it expires, and one answered "once" is spent (see package
// approvalid). Only the harness supplies these flags; the agent supplies
// the command string, and vtexec can never be run from a command string.

// ApprovalIDLifetime is how long an approval id stays good.
const ApprovalIDLifetime = approvalid.Lifetime

// ErrApprovalID is an approval id that does not approve the question.
var ErrApprovalID = approvalid.ErrMismatch

// approvalPayload is what an id is bound to.
type approvalPayload struct {
	Session  string    `json:"session"`
	Cwd      string    `json:"cwd"`
	Commands []Command `json:"commands"`
	Asks     []Ask     `json:"asks"`
	Flow     string    `json:"flow"`
}

// binding is the bytes an id for q asked in session is bound to.
func (q Question) binding(session string) []byte {
	payload, _ := json.Marshal(approvalPayload{Session: session, Cwd: q.Cwd, Commands: q.Commands, Asks: q.Asks, Flow: q.flow})
	return payload
}

// Digest identifies the exact plan a person is asked about: its cwd,
// commands, asks and how the commands are joined, and the text shown.
// Two questions with the same digest approve the same run.
func (q Question) Digest() string {
	payload, _ := json.Marshal(struct {
		approvalPayload
		Text string `json:"text"`
	}{approvalPayload{Cwd: q.Cwd, Commands: q.Commands, Asks: q.Asks, Flow: q.flow}, q.Text()})
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:])
}

// newApprovalID returns an id for the question as asked in session.
func newApprovalID(q Question, session string, now time.Time) (string, error) {
	dir, err := StateDir()
	if err != nil {
		return "", err
	}
	return approvalid.New(dir, q.binding(session), now)
}

// IDApprover answers a question with Answer if ID was handed out for
// exactly that question in Session.
type IDApprover struct {
	ID      string
	Answer  Answer
	Session string
	now     func() time.Time
}

// Approve verifies the id against q and spends it.
func (a IDApprover) Approve(_ context.Context, q Question) (Answer, error) {
	now := time.Now
	if a.now != nil {
		now = a.now
	}
	dir, err := StateDir()
	if err != nil {
		return AnswerDeny, err
	}
	if err := approvalid.Spend(dir, a.ID, q.binding(a.Session), now()); err != nil {
		return AnswerDeny, err
	}
	return a.Answer, nil
}
