package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vtexec, started for every check, run and hook, does not link the MCP
// SDK: the server is vtexec-serve, a program of its own.
func TestVtexecDoesNotLinkTheServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, p := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(p, "github.com/modelcontextprotocol/") || p == "github.com/vtexec/vtexec/serve" || p == "net/http",
			"vtexec links %s", p)
	}
}
