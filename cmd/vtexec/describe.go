package main

import (
	"strings"

	"github.com/vtexec/vtexec/serve"
	"github.com/vtexec/vtexec/validators"
)

// describe is what vtexec describe prints: the rules the MCP tools teach
// a model, and the programs that run without asking.
func describe() string {
	return serve.Rules + "\n\nPrograms that run without asking when their flags and paths check out: " +
		strings.Join(validators.Names(), " ") + ".\nvtexec policy commands lists every flag of each.\n"
}
