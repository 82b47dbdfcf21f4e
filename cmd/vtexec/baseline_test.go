package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The baseline of BenchmarkStartup (and of the speed bench) links the
// third-party packages vtexec links and no others: fewer would charge
// vtexec for its dependencies' init, more would credit it with theirs.
func TestBaselineLinksWhatVtexecLinks(t *testing.T) {
	thirdParty := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		require.NoError(t, err)
		set := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") && !strings.HasPrefix(p, "github.com/vtexec/") {
				set[p] = true
			}
		}
		return set
	}
	base, vtexec := thirdParty("./testdata/baseline"), thirdParty(".")
	for p := range vtexec {
		if !base[p] {
			t.Errorf("vtexec links %s, the baseline does not: add it to testdata/baseline", p)
		}
	}
	for p := range base {
		if !vtexec[p] {
			t.Errorf("the baseline links %s, vtexec does not: remove it from testdata/baseline", p)
		}
	}
}
