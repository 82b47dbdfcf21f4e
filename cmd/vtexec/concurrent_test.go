package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/execpolicy"
)

// Twenty processes approving twenty different rules at once: all twenty
// land in the project-local policy, and it parses.
func TestTwentyConcurrentAlwaysApprovals(t *testing.T) {
	ws := cliWorkspace(t)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "policy", "allow", "--workspace", ws, "--", "tar", fmt.Sprintf("task%d", i))
			cmd.Env = append(os.Environ(), "VTEXEC_TEST_AS_CLI=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	pol, err := execpolicy.LoadPolicy(execpolicy.Layer{Path: filepath.Join(ws, ".vtexec", "policy.local.toml"), Trusted: true})
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, r := range pol.Rules {
		seen[append(r.Subcommand, r.Argv...)[0]] = true
	}
	assert.Len(t, seen, 20)
	assert.Len(t, pol.Rules, 20, "no duplicates")

	for i := range 20 {
		code, _, _ := cli(t, "", "check", "--workspace", ws, "--", fmt.Sprintf("tar task%d", i))
		assert.Equal(t, exitAllow, code, "task%d is approved and the file is trusted", i)
	}
}
