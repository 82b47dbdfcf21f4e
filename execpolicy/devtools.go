package execpolicy

import (
	"strings"

	"github.com/vtexec/vtexec/workspace"
)

// Developer tools (go, npm, node, python, make, …) are not allowlisted: a
// person approves them. Some of their flags hand control to a program,
// file or source of the caller's choosing; those are refused whatever a
// person approved, and inline code is asked about with "once" or
// "session" only. This table is the one place that list lives; it is
// printed by `vtexec policy commands` and in docs/commands.md.

// DevToolRule is one rule about a developer tool's flags.
type DevToolRule struct {
	Program string   // program name as typed (python3, not its path)
	Subs    []string // subcommands the rule applies to; empty means any
	Flags   []string // the flag's spellings; a value may be attached with "="
	// Effect is "refuse", "refuse_outside" (refused unless its value is a
	// path inside the workspace; bare names are left alone), or
	// "inline_code" (asks, never approvable "always").
	Effect string
	Reason string
}

// DevToolRules lists the rules, in the order they are documented.
var DevToolRules = []DevToolRule{
	{"go", []string{"build", "test", "run", "vet", "install", "list", "generate"}, []string{"-exec", "--exec"}, "refuse", "runs the built binaries through a program of the caller's choosing"},
	{"go", []string{"build", "test", "run", "vet", "install", "list", "generate"}, []string{"-toolexec", "--toolexec"}, "refuse", "runs every compiler and linker step through a program of the caller's choosing"},
	{"go", []string{"build", "test", "run", "vet", "install", "list"}, []string{"-overlay", "--overlay", "-modfile", "--modfile", "-C"}, "refuse_outside", "reads build inputs from a file that must be inside the workspace"},
	{"npm", nil, []string{"--script-shell"}, "refuse", "runs package scripts with a shell of the caller's choosing"},
	{"npm", []string{"exec", "x"}, []string{"--yes", "-y"}, "refuse", "downloads and runs a package without asking; install it as a dev dependency first"},
	{"npx", nil, []string{"--yes", "-y"}, "refuse", "downloads and runs a package without asking; install it as a dev dependency first"},
	{"npx", nil, []string{"--package", "-p"}, "refuse", "downloads and runs a package of the caller's choosing"},
	{"node", nil, []string{"-r", "--require", "--import", "--loader", "--experimental-loader"}, "refuse_outside", "preloads a module, which must come from the workspace"},
	{"node", nil, []string{"-e", "--eval", "-p", "--print"}, "inline_code", "runs inline code"},
	{"python", nil, []string{"-c"}, "inline_code", "runs inline code"},
	{"python3", nil, []string{"-c"}, "inline_code", "runs inline code"},
	{"perl", nil, []string{"-e", "-E"}, "inline_code", "runs inline code"},
	{"ruby", nil, []string{"-e"}, "inline_code", "runs inline code"},
	{"php", nil, []string{"-r"}, "inline_code", "runs inline code"},
	{"pip", []string{"install", "download", "wheel"}, []string{"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host"}, "refuse", "installs from a package source vtexec cannot vouch for"},
	{"pip3", []string{"install", "download", "wheel"}, []string{"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host"}, "refuse", "installs from a package source vtexec cannot vouch for"},
	{"make", nil, []string{"--eval", "-E"}, "refuse", "injects make rules that run commands"},
	{"make", nil, []string{"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"}, "refuse_outside", "reads a makefile or directory that must be inside the workspace"},
	{"pytest", nil, []string{"-p"}, "refuse", "loads a plugin of the caller's choosing"},
	{"pytest", nil, []string{"-c", "--config-file", "--rootdir", "--confcutdir"}, "refuse_outside", "reads configuration that must be inside the workspace"},
	{"cargo", nil, []string{"--config"}, "refuse", "overrides configuration, which can name programs to run"},
	{"cargo", nil, []string{"--manifest-path"}, "refuse_outside", "builds a manifest that must be inside the workspace"},
}

// devToolVerdict applies DevToolRules to a command not on the allowlist.
// nil means no rule matched; the command then asks as usual.
func devToolVerdict(name, prog string, argv []string, ws *workspace.Workspace) *Verdict {
	sub := firstOperand(argv[1:])
	var worst *Verdict
	names := programNames(name, prog)
	for _, r := range DevToolRules {
		if !contains(names, r.Program) || (len(r.Subs) > 0 && !contains(r.Subs, sub)) {
			continue
		}
		for i, arg := range argv[1:] {
			if arg == "--" {
				break
			}
			value, ok := flagValue(arg, argv[i+2:], r.Flags)
			if !ok {
				continue
			}
			if v := r.verdict(name, arg, value, ws); v != nil {
				worst = merge(worst, v)
			}
		}
	}
	return worst
}

func (r DevToolRule) verdict(name, arg, value string, ws *workspace.Workspace) *Verdict {
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
