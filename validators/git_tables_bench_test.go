package validators

import "testing"

// The first git command a fresh process checks (a hook, vtexec check)
// builds every git flag table: go test -bench BuildGitCmds -benchmem.
func BenchmarkBuildGitCmds(b *testing.B) {
	for b.Loop() {
		buildGitCmds()
	}
}
