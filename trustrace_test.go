package vtexec

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/execpolicy"
)

// While rules are appended to a trusted policy file, a concurrent load
// never sees the new content untrusted: an approved command stays
// approved throughout.
func TestAppendRuleNeverUntrustsForReaders(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	files, err := PolicyFilesFor(dir)
	require.NoError(t, err)
	ts := execpolicy.TrustStore{Path: files.TrustStore}
	tar, ok := execpolicy.LookPath("tar")
	require.True(t, ok)
	_, trusted, err := ts.AppendTrustedRule(files.ProjectLocal, execpolicy.PolicyRule{Program: tar, Subcommand: []string{"-cf"}, Decision: "allow"}, "")
	require.NoError(t, err)
	require.True(t, trusted)

	var stop atomic.Bool
	var loads, untrusted atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				pol, err := LoadPolicy(files)
				if !assert.NoError(t, err) {
					return
				}
				loads.Add(1)
				if len(pol.Ignored) > 0 {
					untrusted.Add(1)
				}
			}
		}()
	}
	for i := range 40 {
		_, _, err := ts.AppendTrustedRule(files.ProjectLocal, execpolicy.PolicyRule{Program: tar, Subcommand: []string{fmt.Sprintf("task%d", i)}, Decision: "allow"}, "")
		require.NoError(t, err)
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d loads during 40 appends", loads.Load())
	assert.Zero(t, untrusted.Load(), "loads that saw the file untrusted")
	data, err := os.ReadFile(files.TrustStore)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "[", "the store is left with one hash per file")
}
