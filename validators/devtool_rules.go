package validators

import (
	"strings"
	"sync"

	"github.com/vtexec/vtexec/codes"
)

// Developer tools (go, npm, node, python, make, …) are not allowlisted: a
// person approves them. Some of their flags hand control to a program,
// file or source of the caller's choosing; those are refused whatever a
// person approved, and inline code is asked about with "once" or
// "session" only. This table is the one place that list lives; it is
// printed by `vtexec policy commands` and in docs/commands.md; execpolicy
// applies it to a command that is not on the allowlist.

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
	{"node", nil, []string{"-e", "--eval", "-p", "--print"}, codes.InlineCode, "runs inline code"},
	{"python", nil, []string{"-c"}, codes.InlineCode, "runs inline code"},
	{"python3", nil, []string{"-c"}, codes.InlineCode, "runs inline code"},
	{"perl", nil, []string{"-e", "-E"}, codes.InlineCode, "runs inline code"},
	{"ruby", nil, []string{"-e"}, codes.InlineCode, "runs inline code"},
	{"php", nil, []string{"-r"}, codes.InlineCode, "runs inline code"},
	{"pip", []string{"install", "download", "wheel"}, []string{"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host"}, "refuse", "installs from a package source vtexec cannot vouch for"},
	{"pip3", []string{"install", "download", "wheel"}, []string{"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host"}, "refuse", "installs from a package source vtexec cannot vouch for"},
	{"make", nil, []string{"--eval", "-E"}, "refuse", "injects make rules that run commands"},
	{"make", nil, []string{"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"}, "refuse_outside", "reads a makefile or directory that must be inside the workspace"},
	{"pytest", nil, []string{"-p"}, "refuse", "loads a plugin of the caller's choosing"},
	{"pytest", nil, []string{"-c", "--config-file", "--rootdir", "--confcutdir"}, "refuse_outside", "reads configuration that must be inside the workspace"},
	{"cargo", nil, []string{"--config"}, "refuse", "overrides configuration, which can name programs to run"},
	{"cargo", nil, []string{"--manifest-path"}, "refuse_outside", "builds a manifest that must be inside the workspace"},
}

// OwnOptionsEnd returns how many of args (a developer tool's arguments)
// are the tool's own options, for a tool whose options end where the
// command it runs begins (npx TOOL ARGS: ARGS are TOOL's, so tsc's -p is
// not npx's --package). It is len(args) — every argument is the tool's
// to judge — for any other tool, and wherever an option before the
// command might take the next argument as its value.
func OwnOptionsEnd(program string, args []string) int {
	own, ok := ownOptions()[program]
	if !ok {
		return len(args)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--", !strings.HasPrefix(a, "-") || a == "-":
			return i
		case strings.Contains(a, "="), own[a] == noValue:
		case own[a] == takesValue:
			i++ // its value, never the command
		default:
			return len(args) // an option it may not know: judge them all
		}
	}
	return len(args)
}

const (
	unknownOption = iota
	noValue
	takesValue
)

// ownOptions are, for the tools OwnOptionsEnd knows, their options and
// whether each takes the next argument as its value (npx: npm's
// bin/npx-cli.js, which stops at the first positional argument).
var ownOptions = sync.OnceValue(func() map[string]map[string]int {
	return map[string]map[string]int{
		"npx": {"-y": noValue, "--yes": noValue, "--no": noValue, "--no-install": noValue, "-q": noValue, "--quiet": noValue,
			"--silent": noValue, "--prefer-offline": noValue, "--offline": noValue, "--no-audit": noValue, "--no-fund": noValue,
			"-p": takesValue, "--package": takesValue, "--cache": takesValue, "--userconfig": takesValue, "-c": takesValue,
			"--call": takesValue, "--shell": takesValue, "-n": takesValue, "--node-arg": takesValue},
	}
})
