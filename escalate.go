package vtexec

import (
	"fmt"

	"github.com/vtexec/vtexec/audit"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/cwdtrack"
	"github.com/vtexec/vtexec/execpolicy"
)

// A session whose commands keep being refused for what signals probing
// (a path outside the workspace, a protected name, a forbidden program
// or flag: codes.IsSecurity) is escalated once it reaches the policy's
// escalate_after: from then on vtexec allows nothing in it on its own.
// Every command asks a person, with CodeSessionEscalated, until a person
// resets the session (vtexec session reset ID, or a "session" answer to
// such a question).

// CodeSessionEscalated is the code of a command that would have been
// allowed, asked about because its session is escalated.
const CodeSessionEscalated = codes.SessionEscalated

// holdEscalated makes every part the policy allowed ask, when the
// session is escalated.
func (st *state) holdEscalated() {
	if st.sess == nil || !st.sess.Escalated || st.decided == nil {
		return
	}
	if len(st.decided.Parts) == 0 {
		if st.rt != nil && st.decided.Decision == execpolicy.Allow {
			// Only builtins: nothing is allowed on its own here either.
			st.decided.Parts = []execpolicy.Part{{Argv: []string{st.src}, Decision: execpolicy.Allow}}
			st.decided.Rules = []*execpolicy.PolicyRule{nil}
		} else {
			return
		}
	}
	for i, p := range st.decided.Parts {
		if p.Decision != execpolicy.Allow {
			continue
		}
		p.Decision, p.Code, p.NeverAlways = execpolicy.Ask, CodeSessionEscalated, true
		p.Reason = fmt.Sprintf("this session had %d refusals that signal probing (paths outside the workspace, protected names, forbidden programs or flags), so vtexec allows nothing in it on its own", st.sess.Probes)
		p.Hint = "a person approves each command, or resets the session (vtexec session reset " + st.sess.ID + ", or answer \"session\")"
		st.decided.Parts[i] = p
	}
	strict := execpolicy.Strictest(st.decided.Parts)
	d := st.decided.Verdict
	d.Decision, d.Code, d.Reason, d.Hint, d.NeverAlways = strict.Decision, strict.Code, strict.Reason, strict.Hint, strict.NeverAlways
}

// countProbe counts a refusal that signals probing against the session,
// and escalates it when the count reaches the policy's escalate_after.
func (st *state) countProbe() {
	if st.sess == nil || st.store.Dir == "" || st.decided == nil || st.decided.Decision != execpolicy.Deny || !codes.IsSecurity(st.decided.Code) {
		return
	}
	limit := st.pol.EscalateAfter
	escalated := false
	sess, err := st.store.Update(st.sess.ID, st.ws.Root(), func(s *cwdtrack.Session) error {
		s.Probes++
		if limit > 0 && s.Probes >= limit && !s.Escalated {
			s.Escalated, escalated = true, true
		}
		return nil
	})
	if err != nil {
		st.warn(codes.SessionNotSaved, "the refusal was not counted against the session: "+err.Error())
		return
	}
	st.sess = sess
	if escalated {
		reason := fmt.Sprintf("%d refusals in this session signal probing (the last: %s); every further command in it needs a person until one resets it", sess.Probes, st.decided.Code)
		st.warn(CodeSessionEscalated, reason)
		st.audit(audit.Record{Kind: audit.KindSession, Decision: string(execpolicy.Ask), Code: CodeSessionEscalated, Reason: reason})
	}
}

// resetsEscalation reports whether the decision asks because the session
// is escalated: a person's "session" answer to it resets the session.
func resetsEscalation(d Decision) bool {
	for _, a := range d.Asks {
		if a.Code == CodeSessionEscalated {
			return true
		}
	}
	return false
}

// resetSession clears the session's count of probing refusals and its
// escalation, and records the reset.
func (st *state) resetSession(by string) error {
	if st.sess == nil || (!st.sess.Escalated && st.sess.Probes == 0) {
		return nil
	}
	sess, err := st.store.Update(st.sess.ID, st.ws.Root(), func(s *cwdtrack.Session) error {
		s.Probes, s.Escalated = 0, false
		return nil
	})
	if err != nil {
		return err
	}
	st.sess = sess
	st.audit(audit.Record{Kind: audit.KindSession, Decision: string(execpolicy.Allow), Code: CodeSessionReset, Reason: "reset by " + by})
	return nil
}

// CodeSessionReset marks, in the audit log, a session a person reset.
const CodeSessionReset = codes.SessionReset

// ResetSession clears session id's count of refusals that signal probing
// and its escalation (a person's command: vtexec session reset). req
// names the workspace and the audit log, as for Run.
func (e *Engine) ResetSession(req Request) error {
	if req.Session == "" {
		return badRequest("pass --session ID", "no session to reset")
	}
	req.Command = "true"
	st, err := e.prepare(req)
	if err != nil {
		return err
	}
	defer st.closeLog()
	if st.sess == nil {
		return badRequest("check that the state directory is writable", "session %s could not be opened", req.Session)
	}
	return st.resetSession("a person (vtexec session reset)")
}
