package dirwatch

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeptHoldsAValueUntilItsDirectoryChanges(t *testing.T) {
	var k Kept[string, int]
	k.Put("none", 1, nil)
	_, ok := k.Get("none")
	assert.False(t, ok, "nothing is kept without a watch")
	if runtime.GOOS != "linux" {
		return
	}
	a, b := t.TempDir(), t.TempDir()
	watch := func(dir string) *Watch {
		w := New()
		require.True(t, w.Add(dir))
		return w
	}
	k.Max = 2
	k.Put("a", 1, watch(a))
	k.Put("b", 2, watch(b))
	v, ok := k.Get("a")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	require.NoError(t, os.WriteFile(filepath.Join(a, "x"), nil, 0o644))
	_, ok = k.Get("a")
	assert.False(t, ok, "a's directory changed")
	v, ok = k.Get("b")
	assert.True(t, ok, "b's did not")
	assert.Equal(t, 2, v)

	old := watch(a)
	k.Put("c", 3, old)
	k.Put("c", 4, watch(a))
	assert.True(t, old.Changed(), "a replaced value's watch is closed")
	k.Put("d", 5, watch(b)) // past Max: starts afresh
	_, ok = k.Get("b")
	assert.False(t, ok)
	v, ok = k.Get("d")
	assert.True(t, ok)
	assert.Equal(t, 5, v)
}

func TestKeptAgainNotesWhatWasAskedFor(t *testing.T) {
	var k Kept[string, int]
	assert.False(t, k.Again("a"), "first time")
	assert.True(t, k.Again("a"))
	assert.False(t, k.Again("b"))
}
