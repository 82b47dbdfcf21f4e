package vtexec

import (
	"context"
	"fmt"
	"strings"

	"github.com/vtexec/vtexec/audit"
	"github.com/vtexec/vtexec/plan"
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
	defer st.closeLog()
	d := st.decision()
	st.audit(audit.Record{Kind: audit.KindDecision, Decision: string(d.Decision), Code: d.Code, Reason: d.Reason, Hint: d.Hint, Rule: d.Rule, RuleFile: d.RuleFile})
	d.Warnings = st.warnings
	if d.Decision != VerdictAsk || (st.rt != nil && !st.rt.staticAsks) {
		// A run-time request's commands are asked about as they are
		// reached, unless one known before the run asks.
		return d, nil, nil
	}
	q := st.question(d)
	return d, &q, nil
}

// question is what a person is asked about an ask decision.
func (st *state) question(d Decision) Question {
	q := Question{Command: st.src, Cwd: st.ws.Cwd(), Asks: d.Asks, NeverAlways: d.NeverAlways, Commands: d.Commands, Network: askNeedsNetwork(d)}
	if st.decided != nil && st.decided.Plan != nil {
		q.flow = flowOf(st.decided.Plan)
		for _, g := range st.decided.Plan.Groups {
			q.grouped = q.grouped || len(g.Redirects) > 0
		}
	}
	return q
}

// flowOf describes how the plan's commands are joined: for each step,
// its operator, group, ! and pipeline length, and each group's place
// and kind and redirects. An approval id covers it, so that an id given
// for `test -f x && rm f` does not approve `test -f x || rm f`.
func flowOf(p *plan.Plan) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, st := range p.Steps {
		fmt.Fprintf(&b, "%s/%d/%t/%d ", st.Op, st.Group, st.Negate, len(st.Pipeline.Cmds))
	}
	for _, g := range p.Groups {
		fmt.Fprintf(&b, "[%d/%t/%d/%v]", g.Parent, g.Subshell, g.ElseOf, g.Redirects)
	}
	return b.String()
}
