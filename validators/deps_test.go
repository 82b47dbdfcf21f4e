package validators

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The allowlist is a leaf: importing it links no kernel box and no
// runner (whose packages start processes and re-exec vtexec).
func TestValidatorsLinkNoBoxNorRunner(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	allowed := map[string]bool{}
	for _, p := range []string{"workspace", "pathrules", "plan", "progenv", "gitrepo", "codes", "internal/fsutil", "internal/dirwatch", "validators"} {
		allowed["github.com/vtexec/vtexec/"+p] = true
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/vtexec/vtexec") {
			assert.True(t, allowed[dep], "validators depends on %s: a validator needs only the workspace, the plan and what git says", dep)
		}
	}
}
