//go:build linux

package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An allowed command that allocates without end is stopped by vtexec's
// memory bound, not by the machine's, and the result says so. The probe
// stops by itself at 1 GiB, so that the test cannot take the machine
// down even if the bound does not hold.
func TestKernelMemoryIsBounded(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
		[]byte("[limits]\nmemory = \"64MiB\"\n\n[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n"), 0o644))
	grow := `my @keep; for my $i (1..64) { push @keep, "x" x (16 << 20); } print "grew to 1 GiB\n";`
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "grow.pl"), []byte(grow), 0o644))
	out, _ := s.vtexecRun(t, "", "perl grow.pl").Output()
	var res struct {
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
		Warnings []struct {
			Code, Reason string
		} `json:"warnings"`
		Stderr      string `json:"stderr"`
		Confinement struct {
			MemoryCgroup bool     `json:"memory_cgroup"`
			MemoryRlimit bool     `json:"memory_rlimit"`
			Missing      []string `json:"missing"`
		} `json:"confinement"`
	}
	require.NoError(t, jsonUnmarshal(out, &res), "%s", out)
	if os.Getuid() != 0 {
		// A memory cgroup needs root: without, each process is bounded
		// alone (RLIMIT_DATA), which the report says; the allocation
		// fails and the program reports it itself.
		assert.False(t, res.Confinement.MemoryCgroup)
		assert.True(t, res.Confinement.MemoryRlimit, "%s", out)
		assert.Contains(t, strings.Join(res.Confinement.Missing, "\n"), "memory: each process is bounded alone")
		assert.NotContains(t, res.Stdout, "grew to 1 GiB", "the command was not stopped")
		assert.Contains(t, res.Stderr, "Out of memory")
		assert.NotEqual(t, 0, res.ExitCode)
		out, _ = s.vtexecRun(t, "off", "perl grow.pl").Output()
		assert.Contains(t, string(out), "grew to 1 GiB")
		return
	}
	assert.True(t, res.Confinement.MemoryCgroup, "%s", out)
	assert.NotContains(t, res.Stdout, "grew to 1 GiB", "the command was not stopped")
	assert.Equal(t, 137, res.ExitCode, "killed by the kernel: %s", out)
	var codes []string
	for _, w := range res.Warnings {
		codes = append(codes, w.Code)
	}
	assert.Contains(t, strings.Join(codes, " "), "out_of_memory")

	// Unconfined, the same probe grows to its own end: it works.
	out, _ = s.vtexecRun(t, "off", "perl grow.pl").Output()
	assert.Contains(t, string(out), "grew to 1 GiB")
}
