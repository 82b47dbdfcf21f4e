package fsutil

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteAtomicReplaces(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{"WriteAtomic": WriteAtomic, "WriteAtomicNoSync": WriteAtomicNoSync} {
		p := filepath.Join(t.TempDir(), "f")
		require.NoError(t, write(p, []byte("one"), 0o600), name)
		require.NoError(t, write(p, []byte("two"), 0o644), name)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, "two", string(data), name)
		fi, _ := os.Stat(p)
		assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), name)
		entries, _ := os.ReadDir(filepath.Dir(p))
		assert.Len(t, entries, 1, "%s: no temporary file is left behind", name)
	}
}

func TestLockSerialises(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	counter, max := 0, 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := Lock(p)
			require.NoError(t, err)
			mu.Lock()
			counter++
			if counter > max {
				max = counter
			}
			mu.Unlock()
			mu.Lock()
			counter--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, max, "one holder at a time")
}

// A write goes through .NAME.tmp-0: what a killed write left there is
// replaced once it is a minute old; while another write holds it, the
// write goes through a name of its own, and removes then what killed
// writes left under such names.
func TestWriteAtomicTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	fixed := filepath.Join(dir, ".f.tmp-0")
	old := time.Now().Add(-time.Hour)

	require.NoError(t, os.WriteFile(fixed, []byte("killed"), 0o600))
	require.NoError(t, os.Chtimes(fixed, old, old))
	require.NoError(t, WriteAtomic(p, []byte("one"), 0o600))
	assert.NoFileExists(t, fixed)

	require.NoError(t, os.WriteFile(fixed, []byte("another write's"), 0o600))
	stale := filepath.Join(dir, ".f.tmp-12345")
	require.NoError(t, os.WriteFile(stale, nil, 0o600))
	require.NoError(t, os.Chtimes(stale, old, old))
	require.NoError(t, WriteAtomic(p, []byte("two"), 0o600))
	data, err := os.ReadFile(fixed)
	require.NoError(t, err)
	assert.Equal(t, "another write's", string(data))
	assert.NoFileExists(t, stale)
	data, err = os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "two", string(data))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "f and the other write's file")
}
