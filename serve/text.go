package serve

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vtexec/vtexec"
)

// How much of each stream the text for models keeps: its head and its
// tail, with the bytes and lines between them counted. The structured
// result holds everything vtexec kept.
const (
	textHead = 4 << 10
	textTail = 8 << 10
)

// renderResult is a result as text for a model: the exit code, each
// stream's head … tail, and the cwd; for a refusal, the code, the reason
// and the hint.
func renderResult(res vtexec.Result) string {
	var b strings.Builder
	d := res.Decision
	if !d.Allowed() {
		fmt.Fprintf(&b, "refused: %s %s: %s\nhint: %s\n", d.Decision, d.Code, d.Reason, d.Hint)
		fmt.Fprintf(&b, "nothing ran (exit code %d); cwd: %s\n", res.ExitCode, res.Cwd)
		writeWarnings(&b, res.Warnings)
		return b.String()
	}
	fmt.Fprintf(&b, "exit code: %d", res.ExitCode)
	if res.TimedOut {
		fmt.Fprintf(&b, " (timed out after %d ms and killed)", res.DurationMs)
	}
	b.WriteString("\n")
	writeStream(&b, "stdout", res.Stdout)
	writeStream(&b, "stderr", res.Stderr)
	if res.Truncated {
		b.WriteString("note: output beyond vtexec's limit was cut from the middle ([vtexec: N bytes omitted]); write it to a file and read parts of it\n")
	}
	if s := res.Stopped; s != nil {
		fmt.Fprintf(&b, "stopped before %s: %s %s\nhint: %s\n", vtexec.DisplayArgv(s.Argv), s.Code, s.Reason, s.Hint)
	}
	if d.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", d.Note)
	}
	writeWarnings(&b, res.Warnings)
	fmt.Fprintf(&b, "cwd: %s\n", res.Cwd)
	return b.String()
}

// renderDecision is a decision as text for a model.
func renderDecision(d vtexec.Decision) string {
	var b strings.Builder
	if d.Allowed() {
		b.WriteString("allow: it would run\n")
	} else {
		fmt.Fprintf(&b, "%s %s: %s\nhint: %s\n", d.Decision, d.Code, d.Reason, d.Hint)
	}
	writeWarnings(&b, d.Warnings)
	return b.String()
}

func writeWarnings(b *strings.Builder, ws []vtexec.Warning) {
	for _, w := range ws {
		fmt.Fprintf(b, "warning: %s: %s\n", w.Code, w.Reason)
	}
}

func writeStream(b *strings.Builder, name, s string) {
	if s == "" {
		fmt.Fprintf(b, "%s: (empty)\n", name)
		return
	}
	fmt.Fprintf(b, "%s:\n", name)
	s = clip(strings.ToValidUTF8(s, "\uFFFD"), textHead, textTail)
	b.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
}

// clip keeps about head bytes at the start of s and tail bytes at its
// end, cut at line ends where there are any and never inside a
// character, and says what it left out.
func clip(s string, head, tail int) string {
	if len(s) <= head+tail {
		return s
	}
	h := s[:head]
	if i := strings.LastIndexByte(h, '\n'); i >= 0 {
		h = h[:i+1]
	} else {
		for len(h) > 0 && !utf8.RuneStart(s[len(h)]) {
			h = h[:len(h)-1]
		}
	}
	t := s[len(s)-tail:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		t = t[i+1:]
	} else {
		for len(t) > 0 && !utf8.RuneStart(t[0]) {
			t = t[1:]
		}
	}
	mid := s[len(h) : len(s)-len(t)]
	sep := ""
	if h != "" && !strings.HasSuffix(h, "\n") {
		sep = "\n"
	}
	return fmt.Sprintf("%s%s[… %d bytes, %d lines omitted …]\n%s", h, sep, len(mid), strings.Count(mid, "\n"), t)
}
