package phase

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Marks are written in order, with a clock that does not go back, only
// when the package is built to keep them.
func TestWriteAppendsTheMarksInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "phases")
	t.Setenv("VTEXEC_PHASES", path)
	Mark("first")
	Mark("second")
	Write()
	data, err := os.ReadFile(path)
	if !Enabled {
		require.True(t, os.IsNotExist(err), "without the tag nothing is written")
		return
	}
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.GreaterOrEqual(t, len(lines), 3)
	var names []string
	var last int64
	for _, l := range lines {
		ns, name, ok := strings.Cut(l, " ")
		require.True(t, ok, l)
		v, err := strconv.ParseInt(ns, 10, 64)
		require.NoError(t, err)
		require.GreaterOrEqual(t, v, last)
		last = v
		names = append(names, name)
	}
	require.Equal(t, []string{"first", "second", "written"}, names[len(names)-3:])
}

// The clock goes forward, and another process reads the same one: a
// child's reading falls between two of the parent's.
func TestClockIsSharedByProcesses(t *testing.T) {
	if runtime.GOOS == "windows" {
		require.Zero(t, Clock())
		return
	}
	if os.Getenv("PHASE_CLOCK_CHILD") != "" {
		fmt.Println(Clock())
		return
	}
	before := Clock()
	cmd := exec.Command(os.Args[0], "-test.run=^TestClockIsSharedByProcesses$")
	cmd.Env = append(os.Environ(), "PHASE_CLOCK_CHILD=1")
	out, err := cmd.Output()
	require.NoError(t, err)
	after := Clock()
	child, err := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	require.NoError(t, err)
	require.Positive(t, before)
	require.LessOrEqual(t, before, child)
	require.LessOrEqual(t, child, after)
}
