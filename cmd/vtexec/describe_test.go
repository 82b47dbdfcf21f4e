package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vtexec/vtexec/serve"
)

// vtexec describe prints the same rules the MCP tools teach.
func TestDescribeIsTheToolsRules(t *testing.T) {
	code, out, _ := cli(t, "", "describe")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, serve.Rules)
	assert.Contains(t, out, " cat ")
}
