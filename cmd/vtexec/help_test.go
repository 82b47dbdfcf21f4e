package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// vtexec help SUBCOMMAND is that subcommand's usage and flags, not the
// general usage; vtexec version says what it was built from.
func TestHelpPerSubcommand(t *testing.T) {
	for _, sub := range [][]string{{"run"}, {"check"}, {"serve"}, {"policy", "allow"}, {"policy", "root", "add"}, {"describe"}, {"hook"}, {"session"}} {
		name := strings.Join(sub, " ")
		code, out, _ := cli(t, "", append([]string{"help"}, sub...)...)
		assert.Equal(t, 0, code, name)
		assert.Contains(t, out, "vtexec "+name, name)
		for _, other := range []string{"vtexec run ", "vtexec serve ", "vtexec hook install"} {
			if !strings.HasPrefix(other, "vtexec "+sub[0]) {
				assert.NotContains(t, out, other, "%s: the general usage", name)
			}
		}
	}
	code, out, _ := cli(t, "", "version")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `^vtexec \S.* go1\.\d+`, out)
}
