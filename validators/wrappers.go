package validators

import (
	"strings"

	"github.com/vtexec/vtexec/codes"
)

// Wrappers run another command. Their own flags are checked here; the
// command they run is returned by Unwrap and checked by the caller as if
// it stood alone.

// Wrapper is a validator for a program that runs another command.
type Wrapper interface {
	Validator
	// Unwrap checks the wrapper's own flags and returns the argv of the
	// command it runs (nil if it runs none). An error that is a Finding
	// with Ask set comes with the inner argv: the whole command needs a
	// person even if the inner command would be allowed, and the inner
	// command must still be checked.
	Unwrap(c *Call) (inner []string, err error)
}

// wrapperSpec is a Spec whose operands are DUR? COMMAND [ARG]...
type wrapperSpec struct {
	Spec
	// lead is how many operands come before the command (timeout's DURATION).
	lead int
	// check, if set, looks at the parsed wrapper before the command.
	check func(c *Call, a *Args, inner []string) error
}

func (w *wrapperSpec) Check(c *Call) error {
	_, err := w.Unwrap(c)
	return err
}

func (w *wrapperSpec) Unwrap(c *Call) ([]string, error) {
	a, err := w.Parse(c.Argv[1:])
	if err != nil {
		return nil, err
	}
	for _, u := range a.Flags {
		if err := c.checkValue(u); err != nil {
			return nil, err
		}
	}
	if helpOrVersion(a) {
		// --help and --version print text and end the wrapper; what
		// follows is never run.
		return nil, nil
	}
	if len(a.Operands) < w.lead {
		return nil, refuse(CodeBadUsage, "see "+w.Name+" --help", "%s: missing operand", w.Name)
	}
	inner := a.Operands[w.lead:]
	if len(inner) == 0 {
		inner = nil
	}
	if w.check != nil {
		if err := w.check(c, a, inner); err != nil {
			if f, ok := err.(*Finding); ok && f.Ask {
				return inner, f
			}
			return nil, err
		}
	}
	return inner, nil
}

func registerWrapper(w *wrapperSpec) {
	register(w.Name, w, w.Entry)
}

func registerWrappers() {
	registerWrapper(&wrapperSpec{lead: 1, Spec: Spec{Name: "timeout", NoPermute: true,
		Doc: "DURATION COMMAND [ARG]...: COMMAND is checked as if it stood alone", Flags: []Flag{
			{Long: "preserve-status"}, {Long: "foreground"}, {Short: "k", Long: "kill-after", Arg: Text},
			{Short: "s", Long: "signal", Arg: Text}, {Short: "v", Long: "verbose"},
			{Long: "help"}, {Long: "version"},
		}}, check: needsCommand})
	registerWrapper(&wrapperSpec{Spec: Spec{Name: "nice", NoPermute: true, NumberShort: true,
		Doc: "[COMMAND [ARG]...]: COMMAND is checked as if it stood alone", Flags: []Flag{
			{Short: "n", Long: "adjustment", Arg: Number}, {Long: "help"}, {Long: "version"},
		}}})
	registerWrapper(&wrapperSpec{Spec: Spec{Name: "nohup", NoPermute: true,
		Doc:   "COMMAND [ARG]...: COMMAND is checked as if it stood alone (output is captured, so no nohup.out is written)",
		Flags: []Flag{{Long: "help"}, {Long: "version"}}},
		check: needsCommand})
	registerWrapper(&wrapperSpec{Spec: Spec{Name: "stdbuf", NoPermute: true,
		Doc: "COMMAND [ARG]...: COMMAND is checked as if it stood alone", Flags: []Flag{
			{Short: "i", Long: "input", Arg: Text}, {Short: "o", Long: "output", Arg: Text},
			{Short: "e", Long: "error", Arg: Text}, {Long: "help"}, {Long: "version"},
		}}, check: needsCommand})
	registerWrapper(&wrapperSpec{Spec: Spec{Name: "env", NoPermute: true,
		Doc: "[COMMAND [ARG]...]: no NAME=VALUE; COMMAND is checked as if it stood alone; alone, prints the (scrubbed) environment",
		Flags: []Flag{
			{Short: "i", Long: "ignore-environment", Forbid: envFixed}, {Short: "0", Long: "null"},
			{Short: "u", Long: "unset", Arg: Text, Forbid: envFixed},
			{Short: "C", Long: "chdir", Arg: Text, Forbid: "runs the command in another directory than the one its paths were checked against"},
			{Short: "S", Long: "split-string", Arg: Text, Forbid: "splits a string into a command with a quoting language of its own; write the words directly"},
			{Long: "block-signal", Arg: Text, Optional: true}, {Long: "default-signal", Arg: Text, Optional: true},
			{Long: "ignore-signal", Arg: Text, Optional: true}, {Long: "list-signal-handling"},
			{Short: "v", Long: "debug"}, {Long: "help"}, {Long: "version"},
		}}, check: envCheck})
	registerWrapper(&wrapperSpec{Spec: Spec{Name: "xargs", NoPermute: true,
		Doc: "COMMAND [INITIAL-ARGS]...: COMMAND is checked, but the arguments xargs adds come from input vtexec cannot see, so a person must approve",
		Flags: []Flag{
			{Short: "0", Long: "null"}, {Short: "a", Long: "arg-file", Arg: ReadPath},
			{Short: "d", Long: "delimiter", Arg: Text}, {Short: "E", Arg: Text},
			{Short: "e", Long: "eof", Arg: Text, Optional: true}, {Short: "I", Arg: Text},
			{Short: "i", Long: "replace", Arg: Text, Optional: true},
			{Short: "L", Arg: Number}, {Long: "max-lines", Arg: Text, Optional: true}, {Short: "l", Arg: Number, Optional: true},
			{Short: "n", Long: "max-args", Arg: Number}, {Short: "P", Long: "max-procs", Arg: Number},
			{Short: "r", Long: "no-run-if-empty"}, {Short: "s", Long: "max-chars", Arg: Number},
			{Long: "show-limits"}, {Short: "t", Long: "verbose"}, {Short: "x", Long: "exit"},
			{Long: "process-slot-var", Arg: Text}, {Long: "help"}, {Long: "version"},
			{Short: "o", Long: "open-tty", Forbid: "gives the command the terminal; vtexec commands have none"},
			{Short: "p", Long: "interactive", Forbid: "prompts on the terminal; vtexec commands have none"},
		}}, check: xargsCheck})
}

func needsCommand(c *Call, _ *Args, inner []string) error {
	if len(inner) == 0 {
		return refuse(CodeBadUsage, "give the command to run: "+c.Program()+" COMMAND [ARG]...", "%s: no command given", c.Program())
	}
	return nil
}

// envFixed is why env may not remove variables: vtexec's environment
// carries safety settings (git's neutralised configuration, the pager).
const envFixed = "removes variables from the environment vtexec fixed, which carries git's neutralised configuration; run the command without env"

// envCheck refuses NAME=VALUE: the environment is fixed by vtexec.
func envCheck(c *Call, _ *Args, inner []string) error {
	if len(inner) > 0 && strings.Contains(inner[0], "=") {
		return refuse(CodeForbiddenFlag, "drop the assignment; pass values as arguments or flags",
			"env %s: setting environment variables is not allowed", inner[0])
	}
	return nil
}

// xargsCheck asks: the arguments xargs appends are read from its input
// when it runs, so no path among them has been confined.
func xargsCheck(c *Call, a *Args, inner []string) error {
	name := "echo"
	if len(inner) > 0 {
		name = inner[0]
	}
	return &Finding{Ask: true, Code: codes.UnseenArguments,
		Reason: "xargs runs " + name + " with arguments read from its input, which vtexec cannot check",
		Hint:   "pass the files to " + name + " directly, or a person must approve"}
}
