package execpolicy

import (
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Environment prefixes (LC_ALL=C sort) that only tune a program's output
// are passed to it; every other assignment stays refused. Each name has
// a check of its value: nothing here can name a file to load, a program
// to run or a flag to add.
var outputEnv = sync.OnceValue(func() map[string]func(string) bool {
	return map[string]func(string) bool{
		"LC_ALL": isLocale, "LANG": isLocale, "LANGUAGE": isLanguageList, "LC_COLLATE": isLocale, "LC_CTYPE": isLocale,
		"LC_MESSAGES": isLocale, "LC_NUMERIC": isLocale, "LC_TIME": isLocale, "LC_MONETARY": isLocale,
		"TZ":       isTimeZone,
		"NO_COLOR": func(v string) bool { return len(v) <= 8 && isAlnum(v) },
		"COLUMNS":  isSmallNumber, "LINES": isSmallNumber,
		// vtexec forces these (progenv.Env); a prefix may only repeat them.
		"TERM": equals("dumb"), "PAGER": equals("cat"), "GIT_PAGER": equals("cat"), "MANPAGER": equals("cat"),
		"CI":       oneOf("1", "0", "true", "false"),
		"CLICOLOR": oneOf("0", "1"), "CLICOLOR_FORCE": oneOf("0", "1"), "FORCE_COLOR": oneOf("0", "1", "2", "3"),
		// Settings of toolchains that cannot name code to run: no bytecode
		// files, unbuffered output, the mode a Node project runs in, and
		// Python's import path as directories of the workspace.
		"PYTHONDONTWRITEBYTECODE": isFlagValue, "PYTHONUNBUFFERED": isFlagValue,
		"NODE_ENV":   func(v string) bool { return v != "" && len(v) <= 32 && isNameChars(v, "-_") },
		"PYTHONPATH": isRelativeDirs,
		// Which platform go builds for, with or without cgo; how a Rust
		// panic and cargo's output look.
		"CGO_ENABLED":      oneOf("0", "1"),
		"GOOS":             func(v string) bool { return v != "" && len(v) <= 16 && isAlnum(v) },
		"GOARCH":           func(v string) bool { return v != "" && len(v) <= 16 && isAlnum(v) },
		"RUST_BACKTRACE":   oneOf("0", "1", "full", "short"),
		"CARGO_TERM_COLOR": oneOf("auto", "always", "never"),
	}
})

// isFlagValue is a variable set or not: 1, 0, true, yes …
func isFlagValue(v string) bool { return len(v) <= 8 && isAlnum(v) }

// isRelativeDirs is a colon-separated list of directories below the
// working directory (src, src:lib): no absolute path, no "..", nothing
// a flag or a home could be read from. Where they lead is the kernel
// box's to hold; a program given them is one a person approves.
func isRelativeDirs(v string) bool {
	if v == "" || len(v) > 256 {
		return false
	}
	for _, d := range strings.Split(v, ":") {
		if d == "" || strings.HasPrefix(d, "/") || strings.HasPrefix(d, "-") || strings.HasPrefix(d, "~") {
			return false
		}
		for _, part := range strings.Split(d, "/") {
			if part == ".." || !isNameChars(part, "-_.") {
				return false
			}
		}
	}
	return true
}

// OutputEnvNames lists the variables a command may be prefixed with.
func OutputEnvNames() []string {
	names := make([]string, 0, len(outputEnv()))
	for n := range outputEnv() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// prefixEnv takes the environment prefixes off every command that has
// some (A=1 cmd; a bare assignment stays, for forbiddenSyntax to refuse)
// and returns them by command, as KEY=VALUE, once each is found allowed.
func prefixEnv(f *syntax.File) (map[*syntax.CallExpr][]string, *Verdict) {
	var envs map[*syntax.CallExpr][]string
	var found *Verdict
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if found != nil || !ok || len(call.Assigns) == 0 || len(call.Args) == 0 {
			return found == nil
		}
		var env []string
		for _, a := range call.Assigns {
			kv, v := prefixAssign(a)
			if v != nil {
				found = v
				return false
			}
			env = append(env, kv)
		}
		if envs == nil {
			envs = map[*syntax.CallExpr][]string{}
		}
		envs[call] = env
		call.Assigns = nil
		return true
	})
	return envs, found
}

func prefixAssign(a *syntax.Assign) (string, *Verdict) {
	hint := "only these settings may prefix a command (" + strings.Join(OutputEnvNames(), " ") + "), with a literal value; pass other values as arguments or flags"
	if a.Name == nil || a.Append || a.Naked || a.Index != nil || a.Array != nil {
		return "", deny(CodeAssignment, hint, "this kind of assignment is not allowed")
	}
	name := a.Name.Value
	check, ok := outputEnv()[name]
	if !ok {
		return "", deny(CodeAssignment, hint, "%s= is not allowed: the environment is fixed by vtexec", name)
	}
	value, ok := LiteralWord(a.Value)
	if !ok {
		return "", deny(CodeAssignment, hint, "the value of %s must be written literally", name)
	}
	if !check(value) {
		return "", deny(CodeAssignment, hint, "%s=%q is not a value vtexec passes", name, value)
	}
	return name + "=" + value, nil
}

// LiteralWord is the text of a word made of plain text and quotes only,
// with no expansion of any kind; ok is false for anything else. A nil
// word is the empty string.
func LiteralWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[]{}~\\$`!") {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(l.Value, "\\$`!") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func equals(want string) func(string) bool { return func(v string) bool { return v == want } }

func oneOf(vals ...string) func(string) bool {
	return func(v string) bool {
		for _, w := range vals {
			if v == w {
				return true
			}
		}
		return false
	}
}

func isAlnum(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func isSmallNumber(s string) bool {
	if s == "" || len(s) > 4 || s[0] == '0' {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isLocale accepts C, POSIX, C.UTF-8 and ll[_CC][.charset][@modifier]:
// names of installed locales, never a path (which LOCPATH-less glibc
// would otherwise read for a name with a slash).
func isLocale(s string) bool {
	if s == "" || s == "C" || s == "POSIX" {
		return true
	}
	lang, rest, _ := strings.Cut(s, ".")
	lang, mod, hasMod := strings.Cut(lang, "@")
	if hasMod && rest != "" {
		return false // ll@mod.charset is not a locale name
	}
	if rest != "" {
		var charset string
		charset, mod, hasMod = strings.Cut(rest, "@")
		if charset == "" || len(charset) > 16 || !isNameChars(charset, "-_") {
			return false
		}
	}
	if hasMod && (mod == "" || len(mod) > 16 || !isAlnum(mod)) {
		return false
	}
	if lang == "C" {
		return rest != ""
	}
	ll, cc, hasCC := strings.Cut(lang, "_")
	if len(ll) < 2 || len(ll) > 3 || !isLower(ll) {
		return false
	}
	return !hasCC || (len(cc) == 2 && isUpper(cc))
}

// isLanguageList is GNU gettext's LANGUAGE: locales joined by colons.
func isLanguageList(s string) bool {
	for _, l := range strings.Split(s, ":") {
		if l == "" || !isLocale(l) {
			return false
		}
	}
	return len(s) <= 64
}

// isTimeZone accepts a zone name (UTC, Europe/Paris, America/New_York,
// Etc/GMT+5) or a POSIX TZ string without a file (EST5EDT, UTC0): never
// a path or a ":" form, which would make programs read a file named by
// the agent.
func isTimeZone(s string) bool {
	if s == "" || len(s) > 64 || strings.HasPrefix(s, "/") || strings.HasPrefix(s, ":") || strings.Contains(s, "..") {
		return false
	}
	return isNameChars(s, "/_+-,.")
}

func isNameChars(s, extra string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(extra, r)) {
			return false
		}
	}
	return true
}

func isLower(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func isUpper(s string) bool {
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
