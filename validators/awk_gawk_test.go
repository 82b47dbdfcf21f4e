//go:build hostprograms

package validators

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gawk is not in Debian's base; .ci/run installs it and runs these tests
// with go test -tags hostprograms.
func requireGawk(t *testing.T) string {
	t.Helper()
	gawk, err := exec.LookPath("gawk")
	require.NoError(t, err, "gawk is not installed (.ci/run installs it)")
	return gawk
}

// TestAwkAgreesWithGawk runs the allowed programs through gawk, which
// reads some of them differently from mawk (after length, "/" divides).
func TestAwkAgreesWithGawk(t *testing.T) {
	awkAgrees(t, requireGawk(t))
}

// gawk does what the scanner refuses these constructs for.
func TestGawkDoesWhatTheScannerRefuses(t *testing.T) {
	gawk := requireGawk(t)
	for _, tc := range []struct{ prog, file, stdout string }{
		// The statement goes on after "?" or ":" and a newline, so > writes.
		{"BEGIN { print 1 ?\n\"a\" : \"b\" > \"q\" }", "q", ""},
		{"BEGIN { print 1 ? \"a\" :\n\"b\" > \"q\" }", "q", ""},
		// SYMTAB rewrites ARGV and ARGC: awk reads a file no operand names.
		{`BEGIN { SYMTAB["AR" "GV"][1] = "pats.txt"; SYMTAB["AR" "GC"] = 2 } { print }`, "", "TODO\n"},
	} {
		ws := searchWorkspace(t)
		assert.Error(t, awkSpec.Check(&Call{Argv: []string{"awk", tc.prog}, WS: ws}), "%s", tc.prog)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, gawk, tc.prog)
		cmd.Dir = ws.Root()
		out, err := cmd.Output()
		cancel()
		require.NoError(t, err, "%s", tc.prog)
		assert.Equal(t, tc.stdout, string(out), "%s", tc.prog)
		if tc.file != "" {
			assert.FileExists(t, filepath.Join(ws.Root(), tc.file), "%s", tc.prog)
		}
	}
}
