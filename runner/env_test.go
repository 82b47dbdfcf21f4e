package runner

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vtexec/vtexec/plan"
)

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
	want := []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_PAGER=cat",
		"GIT_TERMINAL_PROMPT=0",
		"HOME=/home/a",
		"LANG=en_US.UTF-8",
		"LC_ALL=C",
		"LC_CTYPE=C.UTF-8",
		"MANPAGER=cat",
		"PAGER=cat",
		"PATH=" + plan.TrustedPath,
		"TERM=dumb",
		"TMPDIR=/tmp/a",
		"TZ=UTC",
	}
	assert.Equal(t, want, got)
}

func TestEnvEmptySource(t *testing.T) {
	got := Env(nil)
	assert.True(t, sort.StringsAreSorted(got))
	assert.Contains(t, got, "PATH="+plan.TrustedPath)
	assert.Len(t, got, 7)
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
