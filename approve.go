package vtexec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vtexec/vtexec/internal/display"
)

// Answer is a person's answer to a Question.
type Answer string

const (
	AnswerDeny    Answer = "deny"
	AnswerOnce    Answer = "once"    // run this time only
	AnswerSession Answer = "session" // and remember for this session
	AnswerAlways  Answer = "always"  // and record the rule in the project-local policy
	// AnswerNetwork runs it this time, with the network for the parts
	// that fetch from it (offered when Question.Network).
	AnswerNetwork Answer = "network"
)

// Approver answers questions about commands that need a person. A face
// (terminal prompt, JSON client, MCP client) implements it. An error or an
// empty answer counts as deny.
type Approver interface {
	Approve(ctx context.Context, q Question) (Answer, error)
}

// ErrCannotAsk is what an Approver returns when it cannot put a question
// now (a client asked between calls, reached in the middle of a run):
// the ask is refused as where no person can be asked (needs_approval),
// not as a person's no.
var ErrCannotAsk = errors.New("no person can be asked now")

// Question is what a person is shown: the whole command, every part of it,
// where it runs, why each asking part asks, and the rule that "session" or
// "always" would record.
type Question struct {
	Command  string
	Cwd      string
	Commands []Command
	Asks     []Ask
	// NeverAlways: "always" may not be offered.
	NeverAlways bool
	// Network: a part fetches from the network, which it runs without
	// unless the answer is AnswerNetwork.
	Network bool
	// flow is how the commands are joined (see flowOf); grouped, that a
	// group has redirects of its own, which no command line shows.
	flow    string
	grouped bool
}

// Ask is one part of a command that needs a person.
type Ask struct {
	Argv    []string `json:"argv"`
	Display string   `json:"display"` // Argv escaped for a terminal
	Reason  string   `json:"reason"`
	Code    string   `json:"code,omitempty"` // why it asks
	Rule    string   `json:"rule"`           // what "session" or "always" records
	// Covers says in words what Rule approves besides this command.
	Covers string `json:"covers,omitempty"`
	// Network: the part fetches from the network (an installer, a
	// fetcher), which it runs without unless a person grants it.
	Network bool `json:"network,omitempty"`
	// Shaped: Rule is in the terms of the program's approval shape, so
	// `vtexec policy allow -- ARGV` records the same rule.
	Shaped bool `json:"-"`
	// Exact: the rule approves exactly these arguments; otherwise the
	// program and subcommand words, with any further arguments.
	Exact       bool `json:"exact,omitempty"`
	NeverAlways bool `json:"never_always,omitempty"`
}

// Text renders the question for a terminal. Every word is escaped, so
// control characters and bidirectional overrides cannot hide text.
func (q Question) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vtexec: approve this command?\n")
	fmt.Fprintf(&b, "  in %s\n", DisplayWord(q.Cwd))
	if (len(q.Commands) > 1 || q.grouped) && q.Command != "" {
		// How the commands are joined (&&, ||, if …) decides which run.
		b.WriteString("  as sent:\n")
		for _, line := range strings.Split(strings.TrimRight(q.Command, "\n"), "\n") {
			fmt.Fprintf(&b, "    %s\n", DisplayText(line))
		}
		b.WriteString("  runs:\n")
	}
	for _, c := range q.Commands {
		line := DisplayArgv(c.Argv)
		for _, r := range c.Redirects {
			line += " " + DisplayText(r)
		}
		if c.Source != "" {
			line = DisplayText(c.Source)
		}
		fmt.Fprintf(&b, "  $ %s\n", line)
	}
	for _, a := range q.Asks {
		fmt.Fprintf(&b, "  asks: %s\n    because %s\n", a.Display, DisplayText(a.Reason))
		scope := a.Covers
		if scope == "" {
			scope = "with any further arguments"
			if a.Exact {
				scope = "exactly these arguments"
			}
		}
		if !a.NeverAlways {
			fmt.Fprintf(&b, "    session/always would approve %s\n", DisplayText(scope))
		} else {
			fmt.Fprintf(&b, "    session would approve %s (never always)\n", DisplayText(scope))
		}
		if a.Network {
			b.WriteString("    it fetches from the network, and runs without it unless you answer network (this time, with the network)\n")
		}
	}
	b.WriteString("[o]nce  [s]ession  ")
	if !q.NeverAlways {
		b.WriteString("[a]lways  ")
	}
	if q.Network {
		b.WriteString("[n]etwork  ")
	}
	b.WriteString("[d]eny (Enter, Ctrl-C or no answer: deny) ")
	return b.String()
}

// DisplayArgv renders argv for a person, one escaped word each.
func DisplayArgv(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = DisplayWord(w)
	}
	return strings.Join(words, " ")
}

// DisplayWord quotes a word so that a terminal shows exactly it: plain
// words as they are, others single-quoted, and any control, format or
// bidirectional character (or invalid UTF-8) escaped in $'…'.
func DisplayWord(w string) string {
	if w == "" {
		return "''"
	}
	plain, printable := true, true
	for i, r := range w {
		if r == utf8.RuneError && !strings.HasPrefix(w[i:], "\uFFFD") {
			printable = false
		}
		if !isVisible(r) {
			printable = false
		}
		if !(r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./:=@%+,-", r))) {
			plain = false
		}
	}
	switch {
	case plain:
		return w
	case printable:
		return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); {
		r, size := utf8.DecodeRuneInString(w[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, w[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case isVisible(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}

// DisplayText escapes free text (a reason, a name) for a person: see
// display.Text.
func DisplayText(s string) string { return display.Text(s) }

func isVisible(r rune) bool { return display.Visible(r) }

// ruleWords turns "allow /usr/bin/make test" into "make test" for a hint.
func ruleWords(rule string) string {
	f := strings.Fields(strings.TrimPrefix(rule, "allow "))
	if len(f) > 0 {
		if i := strings.LastIndexByte(f[0], '/'); i >= 0 {
			f[0] = f[0][i+1:]
		}
	}
	return strings.Join(f, " ")
}

func joinHints(h []string) string { return strings.Join(h, "; ") }
