package main

import (
	"runtime/debug"

	"github.com/vtexec/vtexec/internal/buildinfo"
)

// sameBuild reports whether both builds name one source exactly: the
// helper reads a spec this program writes, so it must be this code.
func sameBuild(own, other *debug.BuildInfo) bool {
	a, exact := buildinfo.IdentityOf(own)
	b, _ := buildinfo.IdentityOf(other)
	return exact && a == b
}
