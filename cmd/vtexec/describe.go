package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/modelrules"
)

// describe is what vtexec describe prints: the rules the MCP tools teach
// a model, then what runs without asking, what asks and what is refused,
// made from the catalogue the checks use (execpolicy.Commands).
func describe() string {
	c := execpolicy.Commands()
	var b strings.Builder
	b.WriteString(modelrules.Rules)
	b.WriteString("\n\nRuns without asking, when its flags and paths check out:\n  ")
	names := make([]string, 0, len(c.Allowed))
	for _, e := range c.Allowed {
		names = append(names, e.Program)
	}
	b.WriteString(strings.Join(names, " "))
	b.WriteString("\n\nAsks a person: every other program (developer tools: go, npm, npx, node, python3, make, cargo, pip, pytest …), and uses of the programs above that remove, rewrite or run something (rm, git commit, xargs …). Even approved, these flags are refused:\n")
	var tools []string
	flags := map[string][]string{}
	for _, r := range c.DevTools {
		if r.Effect != "refuse" && r.Effect != "refuse_outside" {
			continue
		}
		if !slices.Contains(tools, r.Program) {
			tools = append(tools, r.Program)
		}
		f := strings.Join(r.Flags, "/")
		if r.Effect == "refuse_outside" {
			f += " (outside the workspace)"
		}
		flags[r.Program] = append(flags[r.Program], f)
	}
	for _, t := range tools {
		fmt.Fprintf(&b, "  %s: %s\n", t, strings.Join(flags[t], ", "))
	}
	b.WriteString("\nRefused whatever is approved:\n")
	groups := map[string][]string{}
	var reasons []string
	for _, f := range c.Forbidden {
		if _, ok := groups[f.Reason]; !ok {
			reasons = append(reasons, f.Reason)
		}
		groups[f.Reason] = append(groups[f.Reason], f.Program)
	}
	slices.Sort(reasons)
	for _, r := range reasons {
		fmt.Fprintf(&b, "  %s: %s\n", strings.Join(groups[r], " "), r)
	}
	b.WriteString("\nvtexec describe PROGRAM shows one program: its operands, the flags it takes and those it refuses.\n")
	return b.String()
}

// describeProgram is vtexec describe PROGRAM.
func describeProgram(name string) string {
	c := execpolicy.Commands()
	for _, f := range c.Forbidden {
		if f.Program == name {
			return fmt.Sprintf("%s is refused whatever is approved: %s.\ninstead: %s\n", name, f.Reason, f.Hint)
		}
	}
	var b strings.Builder
	listed := false
	for _, e := range c.Allowed {
		if e.Program != name {
			continue
		}
		listed = true
		fmt.Fprintf(&b, "%s runs without asking when its flags and paths check out.\noperands: %s\n", name, e.Operands)
		if len(e.Allowed) > 0 {
			fmt.Fprintf(&b, "flags: %s\n", strings.Join(e.Allowed, " "))
		}
		for _, r := range e.Refused {
			fmt.Fprintf(&b, "refused: %s: %s\n", r.Flag, r.Reason)
		}
	}
	if !listed {
		fmt.Fprintf(&b, "%s is not on the allowlist: it asks a person, and runs in the box once approved.\n", name)
	}
	for _, r := range c.DevTools {
		if r.Program == name {
			subs := "any subcommand"
			if len(r.Subs) > 0 {
				subs = strings.Join(r.Subs, " ")
			}
			fmt.Fprintf(&b, "%s (%s): %s: %s\n", strings.Join(r.Flags, "/"), subs, r.Effect, r.Reason)
		}
	}
	return b.String()
}
