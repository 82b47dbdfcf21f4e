package runner

import (
	"sort"
	"strings"

	"github.com/vtexec/vtexec/plan"
)

// keptEnv names the variables Env copies from the source environment.
var keptEnv = map[string]bool{
	"HOME":   true,
	"LANG":   true,
	"TZ":     true,
	"TMPDIR": true,
}

// forcedEnv is set whatever the source says: no pager, no terminal, no
// credential prompt, no system-wide git configuration.
var forcedEnv = map[string]string{
	"PATH":                plan.TrustedPath,
	"TERM":                "dumb",
	"PAGER":               "cat",
	"GIT_PAGER":           "cat",
	"MANPAGER":            "cat",
	"GIT_TERMINAL_PROMPT": "0",
	"GIT_CONFIG_NOSYSTEM": "1",
}

// Env returns the environment commands run with, as sorted KEY=VALUE
// strings. From source it keeps only HOME, LANG, LC_*, TZ and TMPDIR (the
// last occurrence wins if a key repeats; entries without "=" or with a NUL
// byte are dropped); it always sets PATH to plan.TrustedPath and TERM=dumb,
// PAGER=cat, GIT_PAGER=cat, MANPAGER=cat, GIT_TERMINAL_PROMPT=0 and
// GIT_CONFIG_NOSYSTEM=1. Nothing else passes.
func Env(source []string) []string {
	vars := make(map[string]string, len(forcedEnv)+8)
	for _, kv := range source {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || strings.IndexByte(kv, 0) >= 0 || !keepEnv(key) {
			continue
		}
		vars[key] = value
	}
	for key, value := range forcedEnv {
		vars[key] = value
	}
	out := make([]string, 0, len(vars))
	for key, value := range vars {
		out = append(out, key+"="+value)
	}
	sort.Strings(out)
	return out
}

// keepEnv reports whether a variable of the source environment passes.
func keepEnv(key string) bool {
	return keptEnv[key] || (strings.HasPrefix(key, "LC_") && len(key) > len("LC_"))
}
