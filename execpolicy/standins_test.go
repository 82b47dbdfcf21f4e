package execpolicy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
)

// standinChecker is a Checker that finds each name as a stand-in (which
// fails if it is ever run) before the system's directories, so a decision
// does not depend on what is installed. Check never runs them.
func standinChecker(t *testing.T, names ...string) *Checker {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		script := "#!/bin/sh\necho \"stand-in " + name + ": not to be run\" >&2\nexit 97\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	}
	return &Checker{TrustedPath: dir + ":" + plan.TrustedPath}
}
