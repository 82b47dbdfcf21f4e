package fsutil

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

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
