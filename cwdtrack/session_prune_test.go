package cwdtrack

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// age sets the times of the files at paths to ago before now.
func age(t *testing.T, ago time.Duration, paths ...string) {
	t.Helper()
	then := time.Now().Add(-ago)
	for _, p := range paths {
		require.NoError(t, os.Chtimes(p, then, then))
	}
}

func session(t *testing.T, s Store, id string) string {
	t.Helper()
	_, err := s.Update(id, "/ws", func(x *Session) error { x.Cwd = "/ws/sub"; return nil })
	require.NoError(t, err)
	return filepath.Join(s.Dir, id+".json")
}

func TestSessionsUnusedForLongAreForgotten(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	used := session(t, s, "used")
	idle := session(t, s, "idle")
	age(t, 31*24*time.Hour, idle, idle+".lock")
	lockOnly := filepath.Join(s.Dir, "gone.json.lock")
	require.NoError(t, os.WriteFile(lockOnly, nil, 0o600))
	age(t, 31*24*time.Hour, lockOnly)
	oldLock := session(t, s, "old-lock") // used since its lock file was made
	age(t, 31*24*time.Hour, oldLock+".lock")
	age(t, 2*time.Hour, used, used+".lock")
	age(t, pruneEvery+time.Minute, filepath.Join(s.Dir, prunedStamp))

	// A new session looks for old ones.
	fresh := session(t, s, "fresh")
	assert.NoFileExists(t, idle)
	assert.NoFileExists(t, idle+".lock")
	assert.NoFileExists(t, lockOnly)
	for _, p := range []string{used, used + ".lock", oldLock, fresh} {
		assert.FileExists(t, p)
	}
	sess, err := s.Load("idle", "/ws")
	require.NoError(t, err)
	assert.Equal(t, "/ws", sess.Cwd, "a forgotten session starts anew")

	// Not again within pruneEvery.
	idle2 := session(t, s, "idle2")
	age(t, 31*24*time.Hour, idle2, idle2+".lock")
	session(t, s, "fresh2")
	assert.FileExists(t, idle2)
	age(t, pruneEvery+time.Minute, filepath.Join(s.Dir, prunedStamp))
	session(t, s, "fresh3")
	assert.NoFileExists(t, idle2)
}

// A session in use keeps a recent time though it is only read, so no
// prune takes it.
func TestUsedSessionIsTouched(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	path := filepath.Join(s.Dir, "a.json")
	var c Cache
	for name, use := range map[string]func() error{
		"update": func() error {
			_, err := s.Update("a", "/ws", func(*Session) error { return nil })
			return err
		},
		"load": func() error {
			_, err := s.Load("a", "/ws")
			return err
		},
		"cached": func() error {
			id, err := fsutil.Stat(path, false)
			require.NoError(t, err)
			c.put(path, id, Session{ID: "a", Workspace: "/ws"}) // served from it
			_, err = s.LoadCached(&c, "a", "/ws")
			return err
		},
	} {
		session(t, s, "a")
		age(t, 2*touchAfter, path)
		require.NoError(t, use())
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Less(t, time.Since(fi.ModTime()), time.Minute, name)

		// Within touchAfter, a read writes nothing.
		age(t, time.Hour, path)
		require.NoError(t, use())
		fi, err = os.Stat(path)
		require.NoError(t, err)
		assert.Greater(t, time.Since(fi.ModTime()), 59*time.Minute, name)
	}
}

// A store that kept thousands of old sessions is emptied over several
// new sessions, maxForget at a time.
func TestPruneForgetsAtMostMaxForget(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for i := range maxForget + 10 {
		p := filepath.Join(s.Dir, "old-"+strconv.Itoa(i)+".json")
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
		age(t, 31*24*time.Hour, p)
	}
	session(t, s, "new-0") // a new store: its first look is a day later
	left, err := filepath.Glob(filepath.Join(s.Dir, "old-*"))
	require.NoError(t, err)
	assert.Len(t, left, maxForget+10)
	age(t, pruneEvery+time.Minute, filepath.Join(s.Dir, prunedStamp))
	session(t, s, "new-1")
	left, err = filepath.Glob(filepath.Join(s.Dir, "old-*"))
	require.NoError(t, err)
	assert.Len(t, left, 10)
	session(t, s, "new-2") // goes on at once
	left, err = filepath.Glob(filepath.Join(s.Dir, "old-*"))
	require.NoError(t, err)
	assert.Empty(t, left)
	assert.FileExists(t, filepath.Join(s.Dir, prunedStamp))
}
