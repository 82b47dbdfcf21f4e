// Package progenv is the environment a checked program runs with: the
// variables kept from the caller's, those forced (no pager, no prompt, git
// neutered), and a command's own settings. The runner starts programs
// with it; the git inspection runs git with it, so that what the check
// sees is what the run will see.
package progenv

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/plan"
)

// keptEnv names the variables Env copies from the source environment.
var keptEnv = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"HOME":   true,
		"LANG":   true,
		"TZ":     true,
		"TMPDIR": true,
		// The user's settings that cannot name code to run: no bytecode
		// files in the workspace, unbuffered output.
		"PYTHONDONTWRITEBYTECODE": true,
		"PYTHONUNBUFFERED":        true,
	}
})

// forcedEnv is set whatever the source says: no pager, no terminal, no
// credential prompt, no system-wide git configuration, and git neutered
// as described at gitConfig.
var forcedEnv = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"PATH":                plan.TrustedPath,
		"TERM":                "dumb",
		"PAGER":               "cat",
		"GIT_PAGER":           "cat",
		"MANPAGER":            "cat",
		"GIT_TERMINAL_PROMPT": "0",
		"GIT_CONFIG_NOSYSTEM": "1",
		// GIT_EDITOR beats core.editor, GIT_SEQUENCE_EDITOR beats
		// sequence.editor: a repository's configuration cannot name the
		// editor. "true" keeps the message or todo list as git prepared it
		// (commit --amend, rebase --continue, rebase -i --autosquash); a
		// commit without -m aborts on its empty message.
		"GIT_EDITOR":          "true",
		"GIT_SEQUENCE_EDITOR": "true",
		// An empty GIT_PROXY_COMMAND wins over every core.gitProxy and
		// means no proxy command for git:// remotes.
		"GIT_PROXY_COMMAND": "",
	}
})

// gitConfig is configuration handed to every git process through
// GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n. It has the
// "command" scope, read after the system, global and repository files, so
// these values win over whatever a repository's .git/config says; git
// passes them on to the git processes it starts in submodules. Each key
// names a program git would otherwise run, or guards a way to run one.
// Keys whose names a repository chooses itself (diff.<driver>.textconv,
// filter.<driver>.clean, ...) cannot be overridden here; the git validator
// refuses repositories that define them. Tested against git 2.39.
var gitConfig = [][2]string{
	// The fsmonitor hook runs on every status, diff and add.
	{"core.fsmonitor", "false"},
	// Hooks (.git/hooks, or a hooksPath a repository names) run on
	// commit, checkout, merge, rebase, push and every ref update.
	{"core.hooksPath", "/dev/null"},
	// The askpass program runs when a remote wants a password; empty
	// means none (and SSH_ASKPASS is then not consulted either).
	{"core.askPass", ""},
	// ext:: remotes run an arbitrary command; a repository could allow them.
	{"protocol.ext.allow", "never"},
	// A bare repository found by discovery (a directory in the workspace
	// that merely looks like one) brings its own configuration; only
	// bare repositories named with --git-dir are used.
	{"safe.bareRepository", "explicit"},
	// log.showSignature would make a plain git log run gpg.
	{"log.showSignature", "false"},
	// diff.submodule=diff and status.submoduleSummary run git inside
	// submodules, including ones only history knows, which the git
	// validator does not inspect (it refuses --submodule=diff itself).
	{"diff.submodule", "short"},
	{"status.submoduleSummary", "false"},
	// submodule.recurse would make grep, ls-files and checkout enter
	// submodules without --recurse-submodules, which the validator checks.
	{"submodule.recurse", "false"},
}

// gitConfigEnv returns the GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n variables for gitConfig.
func gitConfigEnv() map[string]string {
	vars := map[string]string{"GIT_CONFIG_COUNT": strconv.Itoa(len(gitConfig))}
	for i, kv := range gitConfig {
		n := strconv.Itoa(i)
		vars["GIT_CONFIG_KEY_"+n] = kv[0]
		vars["GIT_CONFIG_VALUE_"+n] = kv[1]
	}
	return vars
}

// Env returns the environment commands run with, as sorted KEY=VALUE
// strings. From source it keeps only HOME, LANG, LC_*, TZ and TMPDIR (the
// last occurrence wins if a key repeats; entries without "=" or with a NUL
// byte are dropped); it always sets PATH to plan.TrustedPath and TERM=dumb,
// PAGER=cat, GIT_PAGER=cat, MANPAGER=cat, GIT_TERMINAL_PROMPT=0,
// GIT_CONFIG_NOSYSTEM=1, GIT_EDITOR=true, GIT_SEQUENCE_EDITOR=true, an
// empty GIT_PROXY_COMMAND, and the git configuration of gitConfig through
// GIT_CONFIG_COUNT. Nothing else passes: no GIT_DIR, GIT_EXEC_PATH,
// GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF or GIT_CONFIG_* from the source.
func Env(source []string) []string {
	vars := make(map[string]string, len(forcedEnv())+2*len(gitConfig)+9)
	for _, kv := range source {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || strings.IndexByte(kv, 0) >= 0 || !keepEnv(key) {
			continue
		}
		vars[key] = value
	}
	for key, value := range forcedEnv() {
		vars[key] = value
	}
	for key, value := range gitConfigEnv() {
		vars[key] = value
	}
	out := make([]string, 0, len(vars))
	for key, value := range vars {
		out = append(out, key+"="+value)
	}
	sort.Strings(out)
	return out
}

// WithPath returns env with PATH set to path, if path is set: the
// trusted PATH with the user's toolchain directories.
func WithPath(env []string, path string) []string {
	if path == "" {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	out = append(out, "PATH="+path)
	sort.Strings(out)
	return out
}

// WithExtra adds extra KEY=VALUE pairs to env, unless env sets the key
// already or the pair is malformed; the result stays sorted.
func WithExtra(env, extra []string) []string {
	if len(extra) == 0 {
		return env
	}
	have := make(map[string]bool, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		have[k] = true
	}
	for _, kv := range extra {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || have[k] || strings.IndexByte(kv, 0) >= 0 {
			continue
		}
		have[k] = true
		env = append(env, kv)
	}
	sort.Strings(env)
	return env
}

// keepEnv reports whether a variable of the source environment passes.
func keepEnv(key string) bool {
	return keptEnv()[key] || (strings.HasPrefix(key, "LC_") && len(key) > len("LC_"))
}

// WithSettings returns env with a command's own KEY=VALUE settings (a
// checked prefix such as LC_ALL=C) in place of what env has for those
// keys; a setting of a forced variable applies only with its forced
// value. env itself is not changed.
func WithSettings(env, settings []string) []string {
	if len(settings) == 0 {
		return env
	}
	set := make(map[string]string, len(settings))
	for _, kv := range settings {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.IndexByte(kv, 0) >= 0 {
			continue
		}
		if forced, isForced := forcedEnv()[k]; isForced && forced != v {
			continue
		}
		set[k] = v
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, replaced := set[k]; !replaced {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
