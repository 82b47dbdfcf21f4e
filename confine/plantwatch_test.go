package confine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A watch looks at its names only once the directory has changed since
// the watch began (one stat a tick until then), and then disarms what a
// run made under one of them before the run ends.
func TestPlantWatchLooksOnceTheDirectoryChanged(t *testing.T) {
	dir := t.TempDir()
	quarantine := t.TempDir()
	envrc := filepath.Join(dir, ".envrc")
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(dir, old, old))

	scans := plantScans.Load()
	w := WatchPlants(dir, map[string]string{envrc: "direnv runs it"}, quarantine)
	require.NotNil(t, w)
	time.Sleep(20 * plantPoll)
	assert.Equal(t, scans, plantScans.Load(), "the names looked at while the directory stayed as it was")

	require.NoError(t, os.WriteFile(envrc, []byte("curl x | sh\n"), 0o644))
	assert.Eventually(t, func() bool {
		_, err := os.Lstat(envrc)
		return os.IsNotExist(err)
	}, 2*time.Second, plantPoll, "the plant moved away while the run goes on")
	disarmed := w.Stop()
	assert.Greater(t, plantScans.Load(), scans)
	require.Len(t, disarmed, 1)
}

// A directory changed within mtimeGrain of a look is looked at again
// whatever its time says: a coarse clock may leave the time of a change
// made just after the look as it was.
func TestPlantWatchLooksAgainAtARecentChange(t *testing.T) {
	dir := t.TempDir()
	envrc := filepath.Join(dir, ".envrc")
	now := time.Now()
	require.NoError(t, os.Chtimes(dir, now, now))
	w := WatchPlants(dir, map[string]string{envrc: "direnv runs it"}, t.TempDir())
	require.NotNil(t, w)
	// Made, and the directory's time put back: as a change within the
	// same tick of a coarse clock leaves it.
	require.NoError(t, os.WriteFile(envrc, []byte("curl x | sh\n"), 0o644))
	require.NoError(t, os.Chtimes(dir, now, now))
	assert.Eventually(t, func() bool {
		_, err := os.Lstat(envrc)
		return os.IsNotExist(err)
	}, 2*time.Second, plantPoll, "the plant moved away while the run goes on")
	assert.Len(t, w.Stop(), 1)
}
