package security

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/progenv"
	"github.com/vtexec/vtexec/validators"
)

// Every configuration key the installed git knows is classified — runs a
// program, names a file, or neither — and for the first two, how boxed
// git is kept from obeying a value nobody vouched for holds: the
// runner's environment overrides it, the validator checks it where it is
// set, or only commands vtexec does not allow use it. A git that adds a
// key fails this test until the key is classified.
func TestEveryGitKeyIsClassified(t *testing.T) {
	out, err := exec.Command("git", "help", "--config").Output()
	require.NoError(t, err)
	keys := regexp.MustCompile(`(?m)^[A-Za-z0-9][^\s]*\.[^\s]+$`).FindAllString(string(out), -1)
	require.Greater(t, len(keys), 500, "git help --config listed the keys")

	env := strings.Join(progenv.Env(nil), "\n") + "\n"
	ws := fixture(t)
	engine := standinEngine(t)
	refused := map[string]bool{}
	kinds := map[string]int{}
	for _, key := range keys {
		rule, ok := validators.ClassifyGitKey(key)
		if !assert.True(t, ok, "git's key %s is not classified (validators.GitKeyRules)", key) {
			continue
		}
		kinds[rule.Kind]++
		if rule.Kind == "neither" {
			continue
		}
		concrete := strings.NewReplacer("credential.<url>.*", "credential.x.helper", "<name>", "x", "<driver>", "x", "<format>", "x", "<url>", "x", "<condition>", "x", "<cmd>", "log", "<tool>", "x", "<identity>", "x", "*", "x").Replace(key)
		switch rule.How {
		case "env":
			assert.True(t, envOverrides(env, concrete), "%s: the runner's environment does not override it", key)
		case "repo":
			assert.True(t, validators.GitKeyChecked(concrete), "%s: the validator does not check it", key)
		case "command", "network":
			probe := rule.Probe
			if rule.How == "network" {
				probe = "git fetch origin"
			}
			if _, seen := refused[probe]; !seen {
				d, err := engine.Check(context.Background(), vtexec.Request{Command: probe, Workspace: ws, AuditLog: "off"})
				require.NoError(t, err)
				refused[probe] = !d.Allowed()
			}
			assert.True(t, refused[probe], "%s: %q, which would use it, runs without a person", key, probe)
		case "protected", "box":
		default:
			t.Errorf("%s: unknown How %q", key, rule.How)
		}
	}
	t.Logf("%d keys: %v", len(keys), kinds)
}

// envOverrides reports whether the runner's environment env (NAME=value
// lines) overrides git's key: through GIT_CONFIG_KEY_n, or the variable
// git reads before it.
func envOverrides(env, key string) bool {
	lower := strings.ToLower(key)
	vars := map[string]string{"core.editor": "GIT_EDITOR", "sequence.editor": "GIT_SEQUENCE_EDITOR", "core.pager": "GIT_PAGER",
		"pager.log": "GIT_PAGER", "core.gitproxy": "GIT_PROXY_COMMAND", "safe.barerepository": "GIT_CONFIG_KEY"}
	if v, ok := vars[lower]; ok && strings.Contains(env, v) && v != "GIT_CONFIG_KEY" {
		return true
	}
	for _, line := range strings.Split(env, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "GIT_CONFIG_KEY_") {
			v = strings.ToLower(v)
			if v == lower || (strings.HasPrefix(lower, "protocol.") && v == "protocol.ext.allow") ||
				(lower == "fsmonitor.socketdir" && v == "core.fsmonitor") {
				return true
			}
		}
	}
	return false
}
