package progenv

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vtexec/vtexec/plan"
)

// gitEnv is what Env always adds for git, sorted.
var gitEnv = []string{
	"GIT_CONFIG_COUNT=9",
	"GIT_CONFIG_KEY_0=core.fsmonitor",
	"GIT_CONFIG_KEY_1=core.hooksPath",
	"GIT_CONFIG_KEY_2=core.askPass",
	"GIT_CONFIG_KEY_3=protocol.ext.allow",
	"GIT_CONFIG_KEY_4=safe.bareRepository",
	"GIT_CONFIG_KEY_5=log.showSignature",
	"GIT_CONFIG_KEY_6=diff.submodule",
	"GIT_CONFIG_KEY_7=status.submoduleSummary",
	"GIT_CONFIG_KEY_8=submodule.recurse",
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_VALUE_0=false",
	"GIT_CONFIG_VALUE_1=/dev/null",
	"GIT_CONFIG_VALUE_2=",
	"GIT_CONFIG_VALUE_3=never",
	"GIT_CONFIG_VALUE_4=explicit",
	"GIT_CONFIG_VALUE_5=false",
	"GIT_CONFIG_VALUE_6=short",
	"GIT_CONFIG_VALUE_7=false",
	"GIT_CONFIG_VALUE_8=false",
	"GIT_EDITOR=true",
	"GIT_PAGER=cat",
	"GIT_PROXY_COMMAND=",
	"GIT_SEQUENCE_EDITOR=true",
	"GIT_TERMINAL_PROMPT=0",
}

func TestEnvKeepsOnlyAllowlist(t *testing.T) {
	got := Env([]string{
		"HOME=/home/a",
		"LANG=en_US.UTF-8",
		"LC_ALL=C",
		"LC_CTYPE=C.UTF-8",
		"TZ=UTC",
		"TMPDIR=/tmp/a",
		"PATH=/evil:/usr/bin",
		"TERM=xterm",
		"PAGER=less",
		"GIT_PAGER=less",
		"GIT_DIR=/x",
		"GIT_CONFIG_GLOBAL=/x",
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=core.fsmonitor",
		"GIT_CONFIG_VALUE_0=/evil",
		"GIT_CONFIG_KEY_6=diff.external",
		"GIT_CONFIG_PARAMETERS='core.pager'='/evil'",
		"GIT_EDITOR=/evil",
		"GIT_EXEC_PATH=/evil",
		"GIT_EXTERNAL_DIFF=/evil",
		"GIT_SSH_COMMAND=/evil",
		"GIT_ASKPASS=/evil",
		"GIT_PROXY_COMMAND=/evil",
		"LD_PRELOAD=/evil.so",
		"LD_LIBRARY_PATH=/evil",
		"BASH_ENV=/evil",
		"ENV=/evil",
		"GITHUB_TOKEN=t",
		"AWS_ACCESS_KEY_ID=k",
		"SSH_AUTH_SOCK=/s",
		"LC_=x",
		"home=/lower",
		"NOEQUALS",
	})
	want := append(append([]string{}, gitEnv...),
		"HOME=/home/a",
		"LANG=en_US.UTF-8",
		"LC_ALL=C",
		"LC_CTYPE=C.UTF-8",
		"MANPAGER=cat",
		"PAGER=cat",
		"PATH="+plan.TrustedPath,
		"TERM=dumb",
		"TMPDIR=/tmp/a",
		"TZ=UTC",
	)
	sort.Strings(want)
	assert.Equal(t, want, got)
	for _, kv := range got {
		assert.NotContains(t, kv, "/evil")
	}
}

func TestEnvEmptySource(t *testing.T) {
	got := Env(nil)
	assert.True(t, sort.StringsAreSorted(got))
	assert.Contains(t, got, "PATH="+plan.TrustedPath)
	assert.Len(t, got, len(forcedEnv())+1+2*len(gitConfig))
	for _, kv := range gitEnv {
		assert.Contains(t, got, kv)
	}
}

func TestEnvLastDuplicateWinsAndNulDropped(t *testing.T) {
	got := Env([]string{"HOME=/a", "HOME=/b", "TZ=a\x00b"})
	assert.Contains(t, got, "HOME=/b")
	assert.NotContains(t, got, "HOME=/a")
	for _, kv := range got {
		assert.NotContains(t, kv, "TZ=")
	}
}

func TestEnvIsDeterministic(t *testing.T) {
	src := []string{"TZ=UTC", "HOME=/h", "LC_ALL=C", "LANG=C"}
	first := Env(src)
	for range 20 {
		assert.Equal(t, first, Env(src))
	}
}

func TestWithSettings(t *testing.T) {
	env := Env([]string{"LANG=en_US.UTF-8", "HOME=/h"})
	got := WithSettings(env, []string{"LANG=C", "LC_ALL=C", "TERM=xterm", "PATH=/tmp", "TERM=dumb"})
	assert.Contains(t, got, "LANG=C")
	assert.NotContains(t, got, "LANG=en_US.UTF-8")
	assert.Contains(t, got, "LC_ALL=C")
	assert.Contains(t, got, "TERM=dumb", "a forced variable keeps its forced value")
	assert.NotContains(t, got, "TERM=xterm")
	assert.NotContains(t, got, "PATH=/tmp")
	assert.True(t, sort.StringsAreSorted(got))
	assert.Equal(t, env, Env([]string{"LANG=en_US.UTF-8", "HOME=/h"}), "env is not changed")
	assert.Equal(t, env, WithSettings(env, nil))
}
