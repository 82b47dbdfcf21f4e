//go:build !windows

package security

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A policy adds protected names; the kernel keeps them read-only too.
func TestKernelProtectsNamesThePolicyAdds(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
		[]byte("protect = [\"deploy/\", \"Makefile\"]\n\n[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "Makefile"), []byte("all:\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(`
my $f;
print "makefile: ", (open($f, '>>', "Makefile") ? "ok" : "denied"), "\n";
print "deploy: ", ((-d "deploy" || mkdir("deploy")) && open($f, '>', "deploy/x") ? "ok" : "denied"), "\n";
print "other: ", (open($f, '>', "other.txt") ? "ok" : "denied"), "\n";
`), 0o644))
	res, got := s.run(t, "")
	assert.Equal(t, "denied", got["makefile"], res.Stdout+res.Stderr)
	// deploy/ did not exist: it could be made during the run, and is
	// moved out of the workspace as soon as the watch sees it (which may
	// be before the file in it is opened) or after the run.
	assert.Contains(t, []string{"ok", "denied"}, got["deploy"], res.Stdout+res.Stderr)
	assert.NoDirExists(t, filepath.Join(s.ws, "deploy"))
	assert.Contains(t, res.Disarmed, filepath.Join(s.ws, "deploy"))
	assert.Equal(t, "ok", got["other"], res.Stdout+res.Stderr)
	res, got = s.run(t, "off")
	assert.Equal(t, "ok", got["makefile"], "the probe works unconfined: "+res.Stdout+res.Stderr)
}
