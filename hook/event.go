// Package hook is vtexec as a pre-tool hook of an agent harness (Claude
// Code, Codex, Gemini CLI): it reads the harness's event, decides with the
// Engine, and answers in that harness's format. It translates and nothing
// more: every decision on a command comes from vtexec.Engine.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vtexec/vtexec/internal/jsonline"
)

// Harness names an agent CLI.
type Harness string

// The harnesses a hook speaks to.
const (
	Claude Harness = "claude"
	Codex  Harness = "codex"
	Gemini Harness = "gemini"
	Auto   Harness = "auto"
)

// Event is one pre-tool event, whatever harness sent it.
type Event struct {
	Harness   Harness
	SessionID string
	Cwd       string
	ToolName  string
	// ToolInput is the tool's complete argument object, each value kept
	// as sent so a rewrite can send every other argument back unchanged.
	ToolInput map[string]json.RawMessage
}

// wire is the union of the three harnesses' event fields; others are
// ignored.
type wire struct {
	SessionID     string                     `json:"session_id"`
	Cwd           string                     `json:"cwd"`
	HookEventName string                     `json:"hook_event_name"`
	ToolName      string                     `json:"tool_name"`
	ToolInput     map[string]json.RawMessage `json:"tool_input"`
	TurnID        *string                    `json:"turn_id"` // Codex only
}

// ParseEvent reads one event. With Auto the harness is recognised:
// BeforeTool is Gemini CLI; PreToolUse with a turn_id is Codex, without
// one Claude Code. An event of another kind, or for another harness than
// h, is an error.
func ParseEvent(h Harness, data []byte) (Event, error) {
	if err := jsonline.Exact(data); err != nil {
		return Event{}, err
	}
	var w wire
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&w); err != nil {
		return Event{}, fmt.Errorf("the event is not a JSON object: %v", err)
	}
	var seen Harness
	switch w.HookEventName {
	case "BeforeTool":
		seen = Gemini
	case "PreToolUse":
		seen = Claude
		if w.TurnID != nil {
			seen = Codex
		}
	default:
		return Event{}, fmt.Errorf("hook_event_name %q is not a pre-tool event (BeforeTool or PreToolUse)", w.HookEventName)
	}
	switch {
	case h == Auto:
		h = seen
	case h != Claude && h != Codex && h != Gemini:
		return Event{}, fmt.Errorf("unknown harness %q", h)
	case (h == Gemini) != (seen == Gemini):
		return Event{}, fmt.Errorf("a %s event came to a hook for %s", w.HookEventName, h)
	}
	if w.ToolName == "" {
		return Event{}, errors.New("the event names no tool (tool_name)")
	}
	if w.ToolInput == nil {
		w.ToolInput = map[string]json.RawMessage{}
	}
	return Event{Harness: h, SessionID: w.SessionID, Cwd: w.Cwd, ToolName: w.ToolName, ToolInput: w.ToolInput}, nil
}

// str returns the string argument name, and whether it is one.
func (e Event) str(name string) (string, bool) {
	raw, ok := e.ToolInput[name]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strs returns the argument name as a list of strings; a single string
// counts as a list of one.
func (e Event) strs(name string) ([]string, bool) {
	raw, ok := e.ToolInput[name]
	if !ok {
		return nil, false
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, true
	}
	if s, ok := e.str(name); ok {
		return []string{s}, true
	}
	return nil, false
}
