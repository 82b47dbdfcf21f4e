package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/buildinfo"
)

// sameBuild reports whether both builds name one source exactly: the
// helper reads a spec this program writes, so it must be this code.
func sameBuild(own, other *debug.BuildInfo) bool {
	a, exact := buildinfo.IdentityOf(own)
	b, _ := buildinfo.IdentityOf(other)
	return exact && a == b
}

// sameBuildAsCaller refuses to serve for a vtexec serve of another build
// than this program's: the two are one installation, and a person who
// updated one of them would get the other's flags and protections. The
// caller's build is taken out of the environment the programs inherit.
// Unlike sameBuild it accepts what it cannot tell apart (a build with
// neither version nor commit; one commit with uncommitted changes on
// both sides): it refuses only a mismatch it sees.
func sameBuildAsCaller() error {
	caller, ok := os.LookupEnv(buildinfo.CallerEnv)
	if !ok {
		return nil // started directly, not by vtexec serve
	}
	os.Unsetenv(buildinfo.CallerEnv)
	own := buildinfo.Identity()
	if own == "" || caller == own {
		return nil
	}
	return &vtexec.RequestError{Code: codes.ServerMismatch,
		Reason: fmt.Sprintf("vtexec-serve is %s, and the vtexec that started it is %s: the two programs are one installation", own, caller),
		Hint:   "install both from one version: " + buildinfo.InstallCommand()}
}
