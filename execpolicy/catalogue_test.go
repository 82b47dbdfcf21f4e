package execpolicy

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/commands.md is generated from the specs; regenerate it with
// go run ./cmd/vtexec policy commands --markdown > docs/commands.md
func TestCommandsDocIsCurrent(t *testing.T) {
	want := Commands().Markdown()
	got, err := os.ReadFile("../docs/commands.md")
	require.NoError(t, err)
	assert.True(t, string(got) == want, "docs/commands.md has drifted from the validator specs; regenerate it with: go run ./cmd/vtexec policy commands --markdown > docs/commands.md")
}

func TestCatalogueListsEveryRule(t *testing.T) {
	c := Commands()
	md := c.Markdown()
	for _, f := range c.Forbidden {
		assert.Contains(t, md, "| `"+f.Program+"` |")
	}
	for _, e := range c.Allowed {
		assert.Contains(t, md, "### "+e.Program+"\n")
	}
	assert.Contains(t, md, "`-toolexec`")
}
