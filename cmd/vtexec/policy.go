package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/vtexec/vtexec/execpolicy"
)

func cmdPolicy(args []string, stdout io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, &usageError{"policy needs a subcommand: commands"}
	}
	switch args[0] {
	case "commands":
		return policyCommands(args[1:], stdout)
	}
	return 0, &usageError{fmt.Sprintf("unknown policy subcommand %q", args[0])}
}

// policyCommands prints the catalogue straight from the validator specs.
func policyCommands(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy commands")
	asJSON := fs.Bool("json", false, "print JSON")
	asMarkdown := fs.Bool("markdown", false, "print the Markdown of docs/commands.md")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	c := execpolicy.Commands()
	switch {
	case *asJSON:
		return 0, encodeJSON(stdout, c)
	case *asMarkdown:
		_, err := io.WriteString(stdout, c.Markdown())
		return 0, err
	}
	for _, e := range c.Allowed {
		fmt.Fprintf(stdout, "%s: %s\n", e.Program, e.Operands)
		for _, r := range e.Refused {
			fmt.Fprintf(stdout, "  refuses %s: %s\n", r.Flag, r.Reason)
		}
	}
	var names []string
	for _, f := range c.Forbidden {
		names = append(names, f.Program)
	}
	fmt.Fprintf(stdout, "\nrefused programs: %s\n", strings.Join(names, " "))
	fmt.Fprintf(stdout, "developer-tool rules: %d (see --markdown)\n", len(c.DevTools))
	return 0, nil
}
