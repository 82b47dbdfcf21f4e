package cwdtrack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionPersists(t *testing.T) {
	st := Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	s1, err := st.Update("s1", "/ws", func(s *Session) error {
		s.Cwd = "/ws/src"
		s.Approvals = append(s.Approvals, Approval{Program: "/usr/bin/make", Subcommand: []string{"test"}})
		return nil
	})
	require.NoError(t, err)
	assert.NotEmpty(t, s1.Token)
	s2, err := st.Update("s1", "/ws", func(*Session) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, s1.Token, s2.Token)
	assert.Equal(t, "/ws/src", s2.Cwd)
	assert.Len(t, s2.Approvals, 1)

	other, err := st.Update("s2", "/ws", func(*Session) error { return nil })
	require.NoError(t, err)
	assert.NotEqual(t, s1.Token, other.Token)
	assert.Empty(t, other.Approvals, "approvals belong to one session")
	assert.Equal(t, "/ws", other.Cwd)

	fi, err := os.Stat(filepath.Join(st.Dir, "s1.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	_, err = st.Update("s1", "/elsewhere", func(*Session) error { return nil })
	assert.True(t, errors.Is(err, ErrWorkspace))

	_, err = st.Update("s1", "/ws", func(s *Session) error { s.Cwd = "/changed"; return errors.New("no") })
	require.Error(t, err)
	s3, _ := st.Update("s1", "/ws", func(*Session) error { return nil })
	assert.Equal(t, "/ws/src", s3.Cwd, "a failed update saves nothing")

	for _, bad := range []string{"", "../x", "a/b", ".hidden", string(make([]byte, 65))} {
		_, err := st.Update(bad, "/ws", func(*Session) error { return nil })
		assert.Error(t, err, "%q", bad)
	}
}

func TestSessionConcurrentUpdates(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := st.Update("s", "/ws", func(s *Session) error {
				s.Approvals = append(s.Approvals, Approval{Program: fmt.Sprint(i)})
				return nil
			})
			assert.NoError(t, err)
		}(i)
	}
	wg.Wait()
	s, err := st.Update("s", "/ws", func(*Session) error { return nil })
	require.NoError(t, err)
	assert.Len(t, s.Approvals, 20)
}

// An update that changes nothing leaves the file as it is.
func TestSessionUnchangedIsNotWritten(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	path := filepath.Join(st.Dir, "s.json")
	_, err := st.Update("s", "/ws", func(*Session) error { return nil })
	require.NoError(t, err)
	first, err := os.Stat(path)
	require.NoError(t, err, "a new session is written")

	_, err = st.Update("s", "/ws", func(s *Session) error { s.Cwd = "/ws"; return nil })
	require.NoError(t, err)
	same, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, os.SameFile(first, same), "rewritten though unchanged")

	s, err := st.Update("s", "/ws", func(s *Session) error { s.Cwd = "/ws/src"; return nil })
	require.NoError(t, err)
	changed, err := os.Stat(path)
	require.NoError(t, err)
	assert.False(t, os.SameFile(first, changed))
	again, err := st.Update("s", "/ws", func(*Session) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, s, again)
}

// A new session left as made is written without waiting for the disk
// (its loss loses nothing the next call would not make again); every
// change, the first included, is written durably.
func TestOnlyAChangeWaitsForTheDisk(t *testing.T) {
	var writes []bool
	for _, durable := range []bool{true, false} {
		w := writeAtomic[durable]
		writeAtomic[durable] = func(path string, data []byte, perm os.FileMode) error {
			writes = append(writes, durable)
			return w(path, data, perm)
		}
		t.Cleanup(func() { writeAtomic[durable] = w })
	}
	st := Store{Dir: t.TempDir()}
	_, err := st.Update("new", "/ws", func(*Session) error { return nil })
	require.NoError(t, err)
	_, err = st.Update("new", "/ws", func(s *Session) error { s.Cwd = "/ws/src"; return nil })
	require.NoError(t, err)
	_, err = st.Update("changed-at-once", "/ws", func(s *Session) error { s.Cwd = "/ws/src"; return nil })
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, true}, writes)
	s, err := st.Load("new", "/ws")
	require.NoError(t, err)
	assert.Equal(t, "/ws/src", s.Cwd)
}
