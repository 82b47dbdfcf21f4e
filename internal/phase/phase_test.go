package phase

import (
	"os"
	"path/filepath"
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
		require.Zero(t, Now())
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
