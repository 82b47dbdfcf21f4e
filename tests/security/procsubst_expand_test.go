package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
)

// A process substitution where the check expands words before the
// syntax is judged — the directory of a cd it follows through a list,
// a loop's words, a redirect's target — is refused, never expanded:
// vtexec's expander has no process substitution, and reaching one
// ended the check with a nil call (the fuzz smoke found
// `cd >(cd &ub k& s lq; ) 2>s1`).
func TestProcessSubstitutionIsNeverExpandedByTheCheck(t *testing.T) {
	ws := fixture(t)
	for _, cmd := range []string{
		"cd >(cd &ub k& s lq; \x10) 2>s1",
		"cd >(true) && ls",
		"cd <(ls) && ls",
		"cd <(ls); ls",
		"for d in <(ls) >(cat); do ls $d; done",
		"for d in a <(ls); do cd $d && ls; done",
		"ls > >(cat)",
		"cat < <(ls) && cd <(pwd)",
	} {
		var d string
		assert.NotPanics(t, func() { d = string(decide(t, ws, cmd).Decision) }, cmd)
		assert.NotEqual(t, "allow", d, cmd)
	}
}

// The same in a policy file's examples, which are expanded when the file
// loads: a process substitution there is a broken rule, not a crash.
func TestProcessSubstitutionInAPolicyExampleIsABrokenRule(t *testing.T) {
	ws := fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".vtexec", "policy.toml"),
		[]byte("[[rule]]\nprogram = \"cat\"\ndecision = \"allow\"\nmatch = [\"cat <(ls)\"]\n"), 0o644))
	e := vtexec.NewEngine(vtexec.Config{})
	t.Cleanup(func() { e.Close() })
	defer e.Close()
	var d vtexec.Decision
	var err error
	require.NotPanics(t, func() {
		d, err = e.Check(context.Background(), vtexec.Request{Command: "cat README.md", Workspace: ws, AuditLog: "off"})
	})
	require.NoError(t, err)
	assert.Equal(t, "deny", string(d.Decision))
	assert.Equal(t, codes.BadPolicy, d.Code, d.Reason)
	assert.Contains(t, d.Reason, "process substitution")
}
