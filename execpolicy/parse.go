package execpolicy

import (
	"io"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// parsers are bash parsers to reuse: a new one costs some 4 KiB, and a
// check parses a command, each run-time statement, and each unrolled
// loop body again. A Parser resets itself at each Parse, and what it
// returns shares nothing with it.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// ParseBash parses src as bash, as vtexec reads every command.
func ParseBash(src string) (*syntax.File, error) {
	return parseBash(strings.NewReader(src))
}

func parseBash(r io.Reader) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(r, "")
}
