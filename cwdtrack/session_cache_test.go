package cwdtrack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// LoadCached answers from its cache only while the file is the one it
// read: every Update, and an edit by hand, is seen.
func TestLoadCachedSeesEveryChange(t *testing.T) {
	defer func(d time.Duration) { cacheAfter = d }(cacheAfter)
	cacheAfter = 0 // every file counts as having stood a while
	s := Store{Dir: t.TempDir()}
	var c Cache
	_, err := s.LoadCached(&c, "c-1", "/ws")
	require.NoError(t, err)
	for i, cwd := range []string{"/ws/a", "/ws/b", "/ws/a"} {
		got, err := s.LoadCached(&c, "c-1", "/ws")
		require.NoError(t, err)
		if i == 0 {
			assert.Equal(t, "/ws", got.Cwd)
		}
		_, err = s.Update("c-1", "/ws", func(x *Session) error { x.Cwd = cwd; return nil })
		require.NoError(t, err)
		got, err = s.LoadCached(&c, "c-1", "/ws")
		require.NoError(t, err)
		assert.Equal(t, cwd, got.Cwd, "step %d", i)
		got, err = s.LoadCached(&c, "c-1", "/ws")
		require.NoError(t, err)
		assert.Equal(t, cwd, got.Cwd, "from the cache, step %d", i)
	}
	c.mu.Lock()
	assert.Len(t, c.m, 1, "the file that stood unchanged was cached")
	c.mu.Unlock()
	got, err := s.LoadCached(&c, "c-1", "/ws")
	require.NoError(t, err)
	got.Approvals = append(got.Approvals, Approval{Program: "rm"})
	again, err := s.LoadCached(&c, "c-1", "/ws")
	require.NoError(t, err)
	assert.Empty(t, again.Approvals, "a caller's change does not reach the cache")
	_, err = s.LoadCached(&c, "c-1", "/other")
	assert.ErrorIs(t, err, ErrWorkspace)

	// A file changed just now is read, not cached.
	cacheAfter = time.Hour
	var fresh Cache
	_, err = s.LoadCached(&fresh, "c-1", "/ws")
	require.NoError(t, err)
	assert.Empty(t, fresh.m)
	// A hand edit that keeps the inode but changes the size is seen.
	cacheAfter = 0
	path := filepath.Join(s.Dir, "c-1.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), `"/ws/a"`, `"/ws/edited"`, 1)), 0o600))
	got, err = s.LoadCached(&c, "c-1", "/ws")
	require.NoError(t, err)
	assert.Equal(t, "/ws/edited", got.Cwd)
}
