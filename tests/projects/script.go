package projects

import (
	"fmt"
	"regexp"
	"strings"
)

// Step is one command of a session and what vtexec is expected to do
// with it.
type Step struct {
	Line    int    // where the command starts in the session file
	Command string // the command string, lines joined with \n
	Expect  string // "allow", "ask" or "deny"
	Why     string // the reason given for ask or deny
	// Volatile are the lines of output that change from one run to the
	// next (a random file name, a checksum of them), left out of the
	// comparison on both sides.
	Volatile []*regexp.Regexp
	// Unordered: the command prints its lines in an order that changes
	// from run to run (rg searches files in parallel); they are compared
	// sorted.
	Unordered bool
}

// ParseSession reads a session file (see the package doc).
func ParseSession(text string) ([]Step, error) {
	var steps []Step
	expect, why, expectLine := "", "", 0
	var volatile []*regexp.Regexp
	unordered := false
	open := false // the last step may take continuation lines
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		switch {
		case line == ">" || strings.HasPrefix(line, "> "):
			if !open {
				return nil, fmt.Errorf("line %d: a continuation line without a command before it", n)
			}
			last := &steps[len(steps)-1]
			last.Command += "\n" + strings.TrimPrefix(strings.TrimPrefix(line, ">"), " ")
		case strings.HasPrefix(line, "$ "):
			cmd := strings.TrimPrefix(line, "$ ")
			if strings.TrimSpace(cmd) == "" {
				return nil, fmt.Errorf("line %d: an empty command", n)
			}
			step := Step{Line: n, Command: cmd, Expect: "allow", Volatile: volatile, Unordered: unordered}
			volatile, unordered = nil, false
			if expect != "" {
				step.Expect, step.Why = expect, why
				expect, why = "", ""
			}
			steps = append(steps, step)
			open = true
		case strings.HasPrefix(line, "? "):
			if expect != "" {
				return nil, fmt.Errorf("line %d: two expectations for one command (the first on line %d)", n, expectLine)
			}
			kind, reason, ok := strings.Cut(strings.TrimPrefix(line, "? "), ":")
			reason = strings.TrimSpace(reason)
			if !ok || (kind != "ask" && kind != "deny") || reason == "" {
				return nil, fmt.Errorf("line %d: want \"? ask: WHY\" or \"? deny: WHY\"", n)
			}
			expect, why, expectLine = kind, reason, n
			open = false
		case strings.HasPrefix(line, "~ "):
			re, err := regexp.Compile(strings.TrimPrefix(line, "~ "))
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			volatile = append(volatile, re)
			open = false
		case line == "= unordered":
			unordered = true
			open = false
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			open = false
		default:
			return nil, fmt.Errorf("line %d: not a command (\"$ \"), a continuation (\"> \"), an expectation (\"? \") or a comment: %q", n, line)
		}
	}
	if expect != "" || volatile != nil || unordered {
		return nil, fmt.Errorf("an expectation or volatile line with no command after it")
	}
	return steps, nil
}
