package execpolicy

import (
	"strings"

	"github.com/vtexec/vtexec/validators"
	"github.com/vtexec/vtexec/workspace"
)

// devToolVerdict applies validators.DevToolRules to a command not on the
// allowlist, known by names (programNames). nil means no rule matched;
// the command then asks as usual.
func devToolVerdict(name string, names, argv []string, ws *workspace.Workspace) *Verdict {
	sub := firstOperand(argv[1:])
	var worst *Verdict
	for _, r := range validators.DevToolRules {
		if !contains(names, r.Program) || (len(r.Subs) > 0 && !contains(r.Subs, sub)) {
			continue
		}
		own := argv[1 : 1+validators.OwnOptionsEnd(r.Program, argv[1:])]
		for i, arg := range own {
			if arg == "--" {
				break
			}
			value, ok := flagValue(arg, argv[i+2:], r.Flags)
			if !ok {
				continue
			}
			if v := devToolRuleVerdict(r, name, arg, value, ws); v != nil {
				worst = merge(worst, v)
			}
		}
	}
	return worst
}

func devToolRuleVerdict(r validators.DevToolRule, name, arg, value string, ws *workspace.Workspace) *Verdict {
	switch r.Effect {
	case "refuse":
		return deny(CodeForbiddenFlag, "drop "+arg+"; it is refused even with approval",
			"%s %s is refused: %s", name, arg, r.Reason)
	case "refuse_outside":
		if value == "-" {
			return &Verdict{Decision: Ask, Code: CodeInlineCode, NeverAlways: true,
				Reason: name + " " + arg + " - reads its file from standard input, which the person would not see; a person may approve it once or for the session, never always",
				Hint:   "write the file inside the workspace and name it"}
		}
		if value == "" || !strings.ContainsAny(value, "/.") {
			return nil
		}
		if _, err := ws.Resolve(value, workspace.Read); err != nil {
			v := pathVerdict(name+" "+arg, value, err)
			v.Reason += " (" + r.Reason + ")"
			return v
		}
		return nil
	default: // inline_code
		return &Verdict{Decision: Ask, Code: CodeInlineCode, NeverAlways: true,
			Reason: name + " " + arg + " " + r.Reason + "; a person may approve it once or for the session, never always",
			Hint:   "put the code in a file inside the workspace and run that file"}
	}
}

// flagValue reports whether arg is one of flags in any form an option
// parser of the GNU family takes, and returns its value: the flag itself
// or, for a "--" flag, a unique-prefix abbreviation of it (--ev for
// --eval), either with "=value" attached or with the value in the next
// word; a one-letter flag anywhere in a cluster of short flags (-sf FILE,
// -sfFILE, -Ic CODE), its value the rest of the cluster or the next word.
// It errs towards a match: a letter that is in fact another flag's value
// only makes a command stricter.
func flagValue(arg string, rest []string, flags []string) (string, bool) {
	next := ""
	if len(rest) > 0 {
		next = rest[0]
	}
	for _, f := range flags {
		long := strings.HasPrefix(f, "--")
		name, value, attached := strings.Cut(arg, "=")
		switch {
		case arg == f:
			return next, true
		case attached && name == f:
			return value, true
		case long && strings.HasPrefix(name, "--") && len(name) > 2 && strings.HasPrefix(f, name):
			if attached {
				return value, true
			}
			return next, true
		case len(f) == 2 && f[0] == '-' && f[1] != '-' && len(arg) >= 2 && arg[0] == '-' && arg[1] != '-':
			if i := strings.IndexByte(arg[1:], f[1]); i >= 0 {
				if v := arg[i+2:]; v != "" {
					return v, true // -fFILE, -sfFILE
				}
				return next, true // -f FILE, -sf FILE
			}
		}
	}
	return "", false
}

func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
