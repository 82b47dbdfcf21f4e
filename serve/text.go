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
		fmt.Fprintf(&b, "refused: %s %s: %s\nhint: %s\n", d.Decision, d.Code, vtexec.DisplayText(d.Reason), vtexec.DisplayText(d.Hint))
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
		fmt.Fprintf(&b, "%s: %s %s\nhint: %s\n", vtexec.StoppedAt(s.Argv), s.Code, vtexec.DisplayText(s.Reason), vtexec.DisplayText(s.Hint))
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
		fmt.Fprintf(&b, "%s %s: %s\nhint: %s\n", d.Decision, d.Code, vtexec.DisplayText(d.Reason), vtexec.DisplayText(d.Hint))
	}
	writeWarnings(&b, d.Warnings)
	return b.String()
}

func writeWarnings(b *strings.Builder, ws []vtexec.Warning) {
	for _, w := range ws {
		fmt.Fprintf(b, "warning: %s: %s\n", w.Code, vtexec.DisplayText(w.Reason))
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

// renderStarted tells a model that its command runs in the background.
func renderStarted(j *job, d vtexec.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "started in the background as job %s; cwd: %s\n", j.id, j.cwd)
	fmt.Fprintf(&b, "read its output with shell_read {\"id\": %q, \"wait_ms\": 1000}; stop it with shell_kill {\"id\": %q}\n", j.id, j.id)
	if d.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", d.Note)
	}
	return b.String()
}

// renderJob is a job's new output and state as text for a model.
func renderJob(out JobOutput) string {
	var b strings.Builder
	switch {
	case out.Running:
		fmt.Fprintf(&b, "job %s is running\n", out.ID)
	case out.ExitCode != nil:
		how := "ended"
		if out.Killed {
			how = "was stopped"
		}
		fmt.Fprintf(&b, "job %s %s: exit code %d\n", out.ID, how, *out.ExitCode)
	default:
		fmt.Fprintf(&b, "job %s ended\n", out.ID)
	}
	if out.DroppedBytes > 0 {
		fmt.Fprintf(&b, "[vtexec: %d bytes of output were dropped before this read; read more often]\n", out.DroppedBytes)
	}
	if out.Output == "" {
		b.WriteString("output: (nothing new)\n")
	} else {
		b.WriteString("output:\n")
		s := clip(out.Output, textHead, textTail)
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteString("\n")
		}
	}
	if out.Error != "" {
		fmt.Fprintf(&b, "vtexec failed to run it: %s\n", out.Error)
	}
	if r := out.Result; r != nil {
		if r.Stderr != "" {
			fmt.Fprintf(&b, "vtexec: %s", r.Stderr)
		}
		writeWarnings(&b, r.Warnings)
	}
	return b.String()
}

// renderList is the list of jobs as text for a model.
func renderList(out ListOutput) string {
	if len(out.Jobs) == 0 {
		return "no background jobs\n"
	}
	var b strings.Builder
	for _, j := range out.Jobs {
		state := "running"
		if j.ExitCode != nil {
			state = fmt.Sprintf("ended, exit code %d", *j.ExitCode)
		} else if !j.Running {
			state = "ended"
		}
		fmt.Fprintf(&b, "%s  %s  (%s; %d bytes unread; started %s in %s)\n", j.ID, vtexec.DisplayText(j.Command), state, j.UnreadBytes, j.StartedAt, j.Cwd)
	}
	return b.String()
}
