//go:build !windows

package security

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A program that fails on what the box denied gets a note naming it and
// how to grant it; a failure the box did not cause gets none.
func TestKernelFailureNamesWhatTheBoxDenied(t *testing.T) {
	s := newAttackSetup(t)
	notes := func(script string) (int, []string) {
		require.NoError(t, os.WriteFile(filepath.Join(s.ws, "probe.pl"), []byte(script), 0o644))
		out, _ := s.vtexecRun(t, "", "perl probe.pl").Output()
		var res struct {
			ExitCode int `json:"exit_code"`
			Decision struct{ Decision, Reason string }
			Warnings []struct{ Code, Reason string }
		}
		require.NoError(t, json.Unmarshal(out, &res), "%s", out)
		require.Equal(t, "allow", res.Decision.Decision, res.Decision.Reason)
		var got []string
		for _, w := range res.Warnings {
			if w.Code == "box_denied" {
				got = append(got, w.Reason)
			}
		}
		return res.ExitCode, got
	}
	code, got := notes(`open(F, ">", "/usr/vtexec-probe") or die "cannot open /usr/vtexec-probe: $!\n";`)
	assert.NotEqual(t, 0, code)
	require.Len(t, got, 1, "the box denied the write")
	assert.Contains(t, got[0], "write /usr/vtexec-probe")
	assert.Contains(t, got[0], "[[root]]")

	code, got = notes(`open(F, ">", "inside.txt") or die "cannot open inside.txt: $!\n"; exit 3;`)
	assert.Equal(t, 3, code)
	assert.Empty(t, got, "a failure the box did not cause")

	code, got = notes(`print STDERR "cannot open ` + s.ws + `/x: Permission denied\n"; exit 4;`)
	assert.Equal(t, 4, code)
	assert.Empty(t, got, "a path the box lets it write")
}
