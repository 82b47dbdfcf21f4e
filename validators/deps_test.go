package validators

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The allowlist is a leaf: importing it links no kernel box and no
// runner (whose packages start processes and re-exec vtexec).
func TestValidatorsLinkNoBoxNorRunner(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/vtexec/vtexec/runner", "github.com/vtexec/vtexec/confine"} {
			require.NotEqual(t, banned, dep, "validators depends on %s", banned)
		}
	}
}
