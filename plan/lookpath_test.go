package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What LookPath keeps follows the search path's directories: a program
// made earlier on the path, one made executable, one removed, and a
// directory of the path made later are all seen at once.
func TestLookPathFollowsChanges(t *testing.T) {
	base := t.TempDir()
	first, second := filepath.Join(base, "first"), filepath.Join(base, "second")
	later := filepath.Join(base, "later")
	require.NoError(t, os.Mkdir(first, 0o755))
	require.NoError(t, os.Mkdir(second, 0o755))
	path := first + string(filepath.ListSeparator) + second + string(filepath.ListSeparator) + later
	write := func(p string, mode os.FileMode) {
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), mode))
		require.NoError(t, os.Chmod(p, mode))
	}
	look := func() string {
		p, _ := LookPath("tool", path)
		return p
	}

	write(filepath.Join(second, "tool"), 0o755)
	assert.Equal(t, filepath.Join(second, "tool"), look())
	assert.Equal(t, filepath.Join(second, "tool"), look(), "kept")

	write(filepath.Join(first, "tool"), 0o644)
	assert.Equal(t, filepath.Join(second, "tool"), look(), "not executable")
	require.NoError(t, os.Chmod(filepath.Join(first, "tool"), 0o755))
	assert.Equal(t, filepath.Join(first, "tool"), look(), "made executable earlier on the path")

	require.NoError(t, os.Remove(filepath.Join(first, "tool")))
	require.NoError(t, os.Remove(filepath.Join(second, "tool")))
	assert.Equal(t, "", look(), "removed")
	assert.Equal(t, "", look(), "kept as missing")
	write(filepath.Join(second, "tool"), 0o755)
	assert.Equal(t, filepath.Join(second, "tool"), look(), "installed after it was kept as missing")
	require.NoError(t, os.Remove(filepath.Join(second, "tool")))
	assert.Equal(t, "", look())

	require.NoError(t, os.Mkdir(later, 0o755))
	write(filepath.Join(later, "tool"), 0o755)
	assert.Equal(t, filepath.Join(later, "tool"), look(), "a directory of the path made later")

	require.NoError(t, os.Rename(later, later+".old"))
	require.NoError(t, os.Mkdir(later, 0o755))
	assert.Equal(t, "", look(), "a directory of the path replaced")
}

// Once a directory has been searched often enough to be listed, its
// names answer for it while they last: a program installed, made
// executable, or a directory replaced after the listing is found, as
// before it — each name new, so nothing kept of it answers instead.
func TestLookPathListedDirectoriesFollowChanges(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "bin")
	require.NoError(t, os.Mkdir(dir, 0o755))
	fresh := freshNames()
	searchUntilListed(t, dir, fresh)

	name := fresh()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
	p, ok := LookPath(name, dir)
	assert.True(t, ok, "installed after the listing")
	assert.Equal(t, filepath.Join(dir, name), p)

	name = fresh()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o644))
	_, ok = LookPath(name, dir)
	assert.False(t, ok, "not executable")
	for range 2 * listAfter {
		LookPath(fresh(), dir) // listed again
	}
	require.NoError(t, os.Chmod(filepath.Join(dir, name), 0o755))
	_, ok = LookPath(name, dir)
	assert.True(t, ok, "made executable after the listing")

	name = fresh()
	require.NoError(t, os.Rename(dir, dir+".old"))
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
	_, ok = LookPath(name, dir)
	assert.True(t, ok, "in a directory that replaced the one listed")
}

// A search path that cannot be watched (here a directory beneath a link
// that leads nowhere; for another user, one in a home it cannot read)
// keeps nothing of its names, so every change is seen at once, and is
// not tried again for every name looked up on it: each try adds watches
// and removes them.
func TestLookPathOnAPathThatCannotBeWatched(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "bin")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(base, "nowhere"), filepath.Join(base, "link")))
	path := dir + string(filepath.ListSeparator) + filepath.Join(base, "link", "bin")
	look := func(name string) string {
		p, _ := LookPath(name, path)
		return p
	}
	tries := watchTries.Load()
	for i := range 40 {
		name := fmt.Sprintf("tool%d", i%4)
		assert.Equal(t, "", look(name))
	}
	assert.LessOrEqual(t, watchTries.Load()-tries, int64(1), "tried once, not for every name")
	_, kept := found.Get(lookup{"tool1", path})
	assert.False(t, kept, "kept without a watch")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tool1"), []byte("#!/bin/sh\n"), 0o755))
	assert.Equal(t, filepath.Join(dir, "tool1"), look("tool1"), "nothing was kept: installed, it is found")
	require.NoError(t, os.Remove(filepath.Join(dir, "tool1")))
	assert.Equal(t, "", look("tool1"), "removed, it is gone")
}

// A directory of the search path whose parents are missing too (a
// ~/.local/bin before ~/.local is made) does not keep the path from
// being watched: the nearest directory above that exists sees the first
// missing one made, and what is kept follows it.
func TestLookPathWatchesAboveMissingDirectories(t *testing.T) {
	base := t.TempDir()
	first := filepath.Join(base, "home", ".local", "bin")
	second := filepath.Join(base, "bin")
	require.NoError(t, os.Mkdir(second, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(second, "tool"), []byte("#!/bin/sh\n"), 0o755))
	path := first + string(filepath.ListSeparator) + second
	look := func() string {
		p, _ := LookPath("tool", path)
		return p
	}
	tries := watchTries.Load()
	for range 20 {
		assert.Equal(t, filepath.Join(second, "tool"), look())
	}
	assert.Equal(t, int64(1), watchTries.Load()-tries, "watched once")
	_, kept := found.Get(lookup{"tool", path})
	assert.True(t, kept, "kept while the directory above the missing ones sees no change")

	// Made, level by level, then the program: found first on the path.
	require.NoError(t, os.Mkdir(filepath.Join(base, "home"), 0o755))
	assert.Equal(t, filepath.Join(second, "tool"), look())
	require.NoError(t, os.MkdirAll(first, 0o755))
	assert.Equal(t, filepath.Join(second, "tool"), look())
	require.NoError(t, os.WriteFile(filepath.Join(first, "tool"), []byte("#!/bin/sh\n"), 0o755))
	assert.Equal(t, filepath.Join(first, "tool"), look(), "installed where the path's first directory now is")
	require.NoError(t, os.RemoveAll(filepath.Join(base, "home")))
	assert.Equal(t, filepath.Join(second, "tool"), look(), "gone again")
}

// A search directory that is not there (a ~/go/bin before anything is
// installed in it) is listed as empty, so the names looked up on it cost
// no stat each, while the directory above it that is there sees nothing
// made; made, with a program in it, it is searched again.
func TestLookPathListsAMissingDirectoryAsEmpty(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "home", "go", "bin")
	require.NoError(t, os.Mkdir(filepath.Join(base, "home"), 0o755))
	fresh := freshNames()
	assert.Empty(t, searchUntilListed(t, missing, fresh).names)

	require.NoError(t, os.MkdirAll(missing, 0o755))
	name := fresh()
	require.NoError(t, os.WriteFile(filepath.Join(missing, name), []byte("#!/bin/sh\n"), 0o755))
	p, ok := LookPath(name, missing)
	assert.True(t, ok, "installed once the directory was made")
	assert.Equal(t, filepath.Join(missing, name), p)
}

// freshNames returns names no program has: tool1, tool2, …
func freshNames() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("tool%d", n) }
}

// searchUntilListed looks names up on dir alone, none found, until it
// must be listed, and returns its listing.
func searchUntilListed(t *testing.T, dir string, fresh func() string) *listing {
	t.Helper()
	for range 2 * listAfter {
		_, ok := LookPath(fresh(), dir)
		require.False(t, ok)
	}
	listings.Lock()
	l, listed := listings.m[dir]
	listings.Unlock()
	require.True(t, listed, "searched %d times, %s is listed", 2*listAfter, dir)
	return l
}
