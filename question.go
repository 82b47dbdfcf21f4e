package vtexec

import (
	"context"

	"github.com/vtexec/vtexec/audit"
	"github.com/vtexec/vtexec/execpolicy"
)

// Question decides on req like Check and, when the decision is ask,
// also returns the question Run would put to req.Approver. A face whose
// person answers outside a call (an MCP client that answers an
// elicitation and then calls again) shows it, and answers the Run that
// follows with what the person chose. Nothing runs.
func (e *Engine) Question(ctx context.Context, req Request) (Decision, *Question, error) {
	st, err := e.prepare(req)
	if err != nil {
		return Decision{}, nil, err
	}
	defer st.log.Close()
	d := st.decision()
	st.audit(audit.Record{Kind: audit.KindDecision, Decision: d.Decision, Code: d.Code, Reason: d.Reason, Hint: d.Hint, Rule: d.Rule, RuleFile: d.RuleFile})
	d.Warnings = st.warnings
	if d.Decision != string(execpolicy.Ask) {
		return d, nil, nil
	}
	q := st.question(d)
	return d, &q, nil
}

// question is what a person is asked about an ask decision.
func (st *state) question(d Decision) Question {
	return Question{Command: st.src, Cwd: st.ws.Cwd(), Asks: d.Asks, NeverAlways: d.NeverAlways, Commands: d.Commands}
}
