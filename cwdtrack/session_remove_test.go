package cwdtrack

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRemoveForgetsTheSession(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	first, err := s.Update("sess-1", "/ws", func(x *Session) error { x.Cwd = "/ws/sub"; return nil })
	require.NoError(t, err)
	require.NoError(t, s.Remove("sess-1"))
	entries, err := os.ReadDir(s.Dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Equal(t, prunedStamp, e.Name(), "no session file and no lock file left")
	}
	again, err := s.Update("sess-1", "/ws", func(*Session) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, "/ws", again.Cwd, "a removed session starts anew")
	assert.NotEqual(t, first.Token, again.Token)
	require.NoError(t, s.Remove("never-made"), "removing what does not exist is not an error")
	assert.Error(t, s.Remove("../x"))
	assert.NoFileExists(t, filepath.Join(s.Dir, "never-made.json.lock"))
}
