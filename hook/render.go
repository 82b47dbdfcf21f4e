package hook

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/internal/display"
)

// Kind is what the hook tells the harness.
type Kind string

const (
	// Pass is no objection: the harness goes on as it would without the
	// hook (its own permission rules still apply).
	Pass Kind = "pass"
	// Allow is vtexec's allow: the harness need not ask anyone.
	Allow Kind = "allow"
	// Rewrite is an allow with new arguments for the tool.
	Rewrite Kind = "rewrite"
	// Ask leaves the choice to a person (Claude Code only).
	Ask Kind = "ask"
	// Deny blocks the tool call.
	Deny Kind = "deny"
)

// Verdict is the hook's answer before it is put in a harness's format.
type Verdict struct {
	Kind               Kind
	Code, Reason, Hint string
	// Input is the tool's complete new argument object (Rewrite).
	Input map[string]json.RawMessage
}

// deny is a refusal with vtexec's code, reason and hint.
func deny(code, reason, hint string) Verdict {
	return Verdict{Kind: Deny, Code: code, Reason: reason, Hint: hint}
}

// fromDecision is the verdict of a decision that is not an allow.
func fromDecision(d vtexec.Decision) Verdict {
	return Verdict{Kind: Kind(d.Decision), Code: d.Code, Reason: d.Reason, Hint: d.Hint}
}

// Message is the text the harness shows the model for a deny or an ask:
// vtexec's code and reason on one line, the hint on the next.
func (v Verdict) Message() string {
	word := "refused"
	if v.Kind == Ask {
		word = "asks a person"
	}
	msg := "vtexec " + word + " (" + v.Code + "): " + display.Text(oneLine(v.Reason))
	if v.Hint != "" {
		msg += "\nHint: " + display.Text(oneLine(v.Hint))
	}
	return msg
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Render puts v in h's format: one JSON object. An ask goes to Claude Code
// as an ask and to the others (which have none, or hang on one) as a
// deny with code needs_approval; Decide already words that deny with its
// hint (vtexec.NeedsApproval), Render only never sends an ask there.
func Render(h Harness, v Verdict) []byte {
	if v.Kind == Ask && h != Claude {
		v.Kind, v.Code = Deny, vtexec.CodeNeedsApproval
	}
	var out any
	switch h {
	case Gemini:
		switch v.Kind {
		case Deny:
			out = map[string]any{"decision": "deny", "reason": v.Message()}
		case Rewrite:
			out = map[string]any{"decision": "allow", "hookSpecificOutput": map[string]any{
				"hookEventName": "BeforeTool", "tool_input": v.Input}}
		default: // Gemini's allow is only "no objection"
			out = map[string]any{"decision": "allow"}
		}
	default: // Claude Code and Codex share hookSpecificOutput
		spec := map[string]any{"hookEventName": "PreToolUse"}
		switch v.Kind {
		case Pass:
			return []byte("{}\n")
		case Allow:
			spec["permissionDecision"] = "allow"
		case Rewrite:
			spec["permissionDecision"] = "allow"
			spec["updatedInput"] = v.Input
		case Ask, Deny:
			spec["permissionDecision"] = string(v.Kind)
			spec["permissionDecisionReason"] = v.Message()
			if v.Kind == Ask && v.Input != nil {
				spec["updatedInput"] = v.Input // the command through vtexec, with its approval id
			}
		}
		out = map[string]any{"hookSpecificOutput": spec}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out) // maps of strings and raw JSON always encode
	return b.Bytes()
}
