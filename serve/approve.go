package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/internal/serveopts"
)

// DefaultAskTimeout is how long a person has to answer an elicitation.
const DefaultAskTimeout = serveopts.DefaultAskTimeout

// approvalKey names the elicitation in a multi round-trip call.
const approvalKey = "approval"

// roundTripVersion is the first protocol version in which a server may
// not send requests of its own during a call: it returns its questions
// as the call's input requests, and the client calls again with the
// answers (SEP-2322).
const roundTripVersion = "2026-07-28"

// How a connection's client can be asked.
type askMode int

const (
	askNone      askMode = iota // no elicitation: an ask is a deny, needs_approval
	askInline                   // elicitation/create while the call waits
	askRoundTrip                // input requests, answered in a second call
)

func askModeOf(ss *mcp.ServerSession) askMode {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return askNone
	}
	if e := p.Capabilities.Elicitation; e.Form == nil && e.URL != nil {
		return askNone // URL mode only: it cannot show a form
	}
	if p.ProtocolVersion >= roundTripVersion {
		return askRoundTrip
	}
	return askInline
}

// elicitApprover asks the person behind an MCP client with
// elicitation/create while the call waits: a form with one field, once,
// session, always or deny. Declining, cancelling, an answer outside
// these and no answer before the timeout all deny.
type elicitApprover struct {
	ss      *mcp.ServerSession
	timeout time.Duration
	purpose string // the agent's description of the command
}

func (a *elicitApprover) Approve(ctx context.Context, q vtexec.Question) (vtexec.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	res, err := a.ss.Elicit(ctx, elicitParams(q, a.timeout, a.purpose))
	if err != nil {
		return vtexec.AnswerDeny, err
	}
	return answerOf(res, q), nil
}

// answeredApprover answers with the person's answer to the question
// shown in an earlier round of the call, if Run asks the same question:
// the round's request state is a ticket for that question on this
// connection, spent by this answer. A command whose question changed in
// between (its files did), a ticket already spent, expired or issued to
// another connection or an earlier server is denied.
type answeredApprover struct {
	response mcp.InputResponse
	state    string // the round's request state: a ticket (see tickets)
	conn     string
	tickets  *tickets
	used     bool // it answered its one question
}

func (a *answeredApprover) Approve(_ context.Context, q vtexec.Question) (vtexec.Answer, error) {
	if a.used {
		// A second question, reached in the middle of a run: the client
		// is asked between calls, not now.
		return vtexec.AnswerDeny, vtexec.ErrCannotAsk
	}
	a.used = true
	if err := a.tickets.redeem(a.conn, q.Digest(), a.state); err != nil {
		return vtexec.AnswerDeny, err
	}
	res, ok := a.response.(*mcp.ElicitResult)
	if !ok {
		return vtexec.AnswerDeny, fmt.Errorf("the answer is a %T, not an elicitation result", a.response)
	}
	return answerOf(res, q), nil
}

// answerOf reads the person's answer; anything but an accepted form with
// an answer on offer is deny.
func answerOf(res *mcp.ElicitResult, q vtexec.Question) vtexec.Answer {
	if res == nil || res.Action != "accept" {
		return vtexec.AnswerDeny
	}
	answer, _ := res.Content["answer"].(string)
	switch a := vtexec.Answer(answer); a {
	case vtexec.AnswerOnce, vtexec.AnswerSession:
		return a
	case vtexec.AnswerAlways:
		if !q.NeverAlways {
			return a
		}
	case vtexec.AnswerNetwork:
		if q.Network {
			return a
		}
	}
	return vtexec.AnswerDeny
}

// textDigest identifies a question shown as text only.
func textDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

func elicitParams(q vtexec.Question, timeout time.Duration, purpose string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: elicitMessage(q, timeout, purpose), RequestedSchema: answerSchema(q)}
}

// maxPurpose bounds the agent's description shown with a question.
const maxPurpose = 200

// elicitMessage is the question as a terminal shows it (every word
// escaped, the rule "session" or "always" would record) and the agent's
// description of it, escaped, with the terminal's key line replaced by
// what the form offers.
func elicitMessage(q vtexec.Question, timeout time.Duration, purpose string) string {
	text := q.Text()
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[:i+1]
	}
	if purpose != "" {
		if len(purpose) > maxPurpose {
			purpose = strings.ToValidUTF8(purpose[:maxPurpose], "") + "…"
		}
		text += "  the agent says it is for: " + vtexec.DisplayText(purpose) + "\n"
	}
	offer := "Answer once (run it this time), session (allow the rule for this connection), always (record the rule in .vtexec/policy.local.toml) or deny."
	if q.NeverAlways {
		offer = "Answer once (run it this time), session (allow the rule for this connection) or deny; this command cannot be approved always."
	}
	if q.Network {
		offer += " Or network: run it this time with the network, which it fetches from."
	}
	deadline := ""
	if timeout > 0 {
		deadline = fmt.Sprintf(" No answer within %s denies.", timeout)
	}
	return text + offer + deadline
}

func answerSchema(q vtexec.Question) *jsonschema.Schema {
	choices := []any{string(vtexec.AnswerOnce), string(vtexec.AnswerSession)}
	if !q.NeverAlways {
		choices = append(choices, string(vtexec.AnswerAlways))
	}
	if q.Network {
		choices = append(choices, string(vtexec.AnswerNetwork))
	}
	choices = append(choices, string(vtexec.AnswerDeny))
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"answer": {Type: "string", Title: "Run this command?", Enum: choices},
		},
		Required: []string{"answer"},
	}
}
