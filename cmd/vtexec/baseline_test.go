package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The baseline of BenchmarkStartup links every third-party package vtexec
// links, or the comparison would charge vtexec for its dependencies' init.
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
	base := thirdParty("./testdata/baseline")
	for p := range thirdParty(".") {
		if !base[p] {
			t.Errorf("vtexec links %s, the baseline does not: add it to testdata/baseline", p)
		}
	}
}
