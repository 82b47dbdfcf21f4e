package dirwatch

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWatchSeesChangesInTheDirectoriesAdded(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.Nil(t, New())
		assert.True(t, New().Changed(), "no watch: everything has changed")
		return
	}
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	other := filepath.Join(root, "other")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.Mkdir(other, 0o755))
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(sub, link))

	w := New()
	require.NotNil(t, w)
	defer w.Close()
	assert.False(t, w.Add(link), "a final link is not followed")
	assert.True(t, w.Add(sub))
	assert.False(t, w.Changed())
	require.NoError(t, os.WriteFile(filepath.Join(other, "x"), nil, 0o644))
	assert.False(t, w.Changed(), "a directory not added")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "x"), nil, 0o644))
	assert.True(t, w.Changed())
	assert.True(t, w.Changed(), "stays changed")

	f := New()
	require.NotNil(t, f)
	assert.True(t, f.AddFollow(link), "AddFollow follows the link")
	require.NoError(t, os.Remove(filepath.Join(sub, "x")))
	assert.True(t, f.Changed())
	f.Close()
	assert.True(t, f.Changed(), "a closed watch has changed")
	assert.False(t, f.Add(sub))

	var none *Watch
	assert.True(t, none.Changed())
	none.Close()
}

// Watches share one inotify instance (a user has 128 at most) and the
// directories they watch: closing one leaves the other watching.
func TestWatchesShareOneInstance(t *testing.T) {
	if runtime.GOOS != "linux" {
		return
	}
	dir := t.TempDir()
	fds := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(entries)
	}
	New().Close() // the instance exists from here on
	before := fds()
	var ws []*Watch
	for range 200 {
		w := New()
		require.True(t, w.Add(dir))
		ws = append(ws, w)
	}
	assert.Equal(t, before, fds(), "no descriptor per watch")
	for _, w := range ws[1:] {
		w.Close()
	}
	assert.False(t, ws[0].Changed())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	assert.True(t, ws[0].Changed(), "the one left still watches")
	ws[0].Close()
}

// A shared watch ends when every owner has closed it: the first owner's
// Close leaves the others watching.
func TestSharedWatchEndsWithItsLastOwner(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.Nil(t, New().Share())
		return
	}
	dir := t.TempDir()
	w := New()
	require.NotNil(t, w)
	require.True(t, w.Add(dir))
	second := w.Share()
	w.Close()
	assert.False(t, second.Changed(), "still watched for the second owner")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	assert.True(t, second.Changed(), "and it sees a change")
	second.Close()
	assert.True(t, second.Changed(), "closed by its last owner")
}

// A watch of entries sees names made, removed and renamed, and not an
// entry's mode changed; a full watch of the same directory, made before
// or after it, still sees that.
func TestWatchOfEntries(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.Nil(t, NewEntries())
		return
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "tool")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	entries := NewEntries()
	defer entries.Close()
	require.True(t, entries.Add(dir))
	require.NoError(t, os.Chmod(f, 0o755))
	assert.False(t, entries.Changed(), "a mode changed is not an entry's change")
	require.NoError(t, os.Rename(f, f+".old"))
	assert.True(t, entries.Changed(), "a rename is")

	full := New()
	defer full.Close()
	require.True(t, full.Add(dir))
	again := NewEntries()
	defer again.Close()
	require.True(t, again.Add(dir), "an entries watch added after a full one")
	require.NoError(t, os.Chmod(f+".old", 0o700))
	assert.True(t, full.Changed(), "the full watch keeps seeing modes")
}

// Seen answers for the events read by the last Drain (or Changed): a
// change made after it shows once the queue is read again.
func TestSeenAnswersAsOfTheLastDrain(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.True(t, NewEntries().Seen(), "no watch: everything has changed")
		return
	}
	dir := t.TempDir()
	w := NewEntries()
	require.NotNil(t, w)
	defer w.Close()
	require.True(t, w.Add(dir))
	Drain()
	assert.False(t, w.Seen())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new"), nil, 0o644))
	assert.False(t, w.Seen(), "not read yet")
	Drain()
	assert.True(t, w.Seen(), "read by Drain")
	assert.True(t, w.Changed())
}

// A watch of names in a directory minds only them: a busy directory
// (a log written beside a policy file) does not end it, while the names
// made, removed, renamed, written to or chmodded, or the directory
// itself moved, do.
func TestAddNamesMindsOnlyTheNames(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.False(t, New().AddNames(t.TempDir(), true, "x"))
		return
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	policy, log := filepath.Join(sub, "policy.toml"), filepath.Join(sub, "audit.jsonl")
	require.NoError(t, os.WriteFile(policy, []byte("a"), 0o644))
	require.NoError(t, os.WriteFile(log, nil, 0o644))
	watch := func(contents bool) *Watch {
		w := New()
		require.NotNil(t, w)
		require.True(t, w.AddNames(sub, contents, "policy.toml"))
		t.Cleanup(w.Close)
		return w
	}
	appendTo := func(p string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.Write([]byte("b"))
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}

	w := watch(true)
	appendTo(log)
	require.NoError(t, os.WriteFile(filepath.Join(sub, "other"), nil, 0o644))
	assert.False(t, w.Changed(), "other names come and change")
	// Another watch of the same directory, of every name, added later,
	// keeps what this one asked for (inotify keeps one mask per
	// directory).
	all := New()
	require.True(t, all.Add(sub))
	defer all.Close()
	appendTo(log)
	require.NoError(t, os.Remove(filepath.Join(sub, "other")))
	assert.False(t, w.Changed())
	assert.True(t, all.Changed(), "the watch of every name sees another name go")
	appendTo(policy)
	assert.True(t, w.Changed(), "a write to the name")

	w = watch(true)
	require.NoError(t, os.Chmod(policy, 0o600))
	assert.True(t, w.Changed(), "its attributes")

	w = watch(false)
	appendTo(policy)
	assert.False(t, w.Changed(), "without contents a write is not minded")
	require.NoError(t, os.Rename(policy, policy+".old"))
	assert.True(t, w.Changed(), "renamed away")

	w = watch(false)
	require.NoError(t, os.WriteFile(policy+".new", nil, 0o644))
	assert.False(t, w.Changed())
	require.NoError(t, os.Rename(policy+".new", policy))
	assert.True(t, w.Changed(), "renamed in")

	w = watch(false)
	require.NoError(t, os.Remove(policy))
	assert.True(t, w.Changed(), "removed")

	w = watch(false)
	require.NoError(t, os.WriteFile(policy, nil, 0o644))
	assert.True(t, w.Changed(), "made")

	w = watch(false)
	require.NoError(t, os.Rename(sub, sub+".moved"))
	assert.True(t, w.Changed(), "the directory itself moved")

	none := New()
	assert.False(t, none.AddNames(dir, true), "no name")
	none.Close()
}

// Read per request, a watch answers as of the moment the request began:
// a change made after it shows from the next request on.
func TestReadPerRequestAnswersAsOfTheRequest(t *testing.T) {
	if runtime.GOOS != "linux" {
		return
	}
	dir := t.TempDir()
	w := New()
	require.True(t, w.Add(dir))
	defer w.Close()
	ReadPerRequest(true)
	t.Cleanup(func() { ReadPerRequest(false) })
	RequestBegins()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	Drain()
	assert.False(t, w.Changed(), "within the request: as of its beginning")
	RequestBegins()
	assert.True(t, w.Changed(), "the next request sees it")

	v := New()
	require.True(t, v.Add(dir))
	defer v.Close()
	ReadPerRequest(false)
	require.NoError(t, os.Remove(filepath.Join(dir, "x")))
	assert.True(t, v.Changed(), "read by every Changed again")
}

// An event queued before a watch added its interest in a directory (a
// name made there, which another watch of the directory minds) is not a
// change for it.
func TestEventsBeforeAnAddAreNotItsChanges(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.Nil(t, NewEntries())
		return
	}
	dir := t.TempDir()
	first := NewEntries()
	require.NotNil(t, first)
	defer first.Close()
	require.True(t, first.AddNames(dir, false, "a"))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "b"), 0o755)) // queued for the directory's watch
	second := NewEntries()
	defer second.Close()
	require.True(t, second.AddNames(dir, false, "b"))
	assert.False(t, second.Changed(), "b was made before the watch")
	require.NoError(t, os.Remove(filepath.Join(dir, "b")))
	assert.True(t, second.Changed(), "b removed since")
	assert.False(t, first.Changed(), "a is as it was")
}

// AddPaths minds where each path leads: an entry put in the place of a
// component, at any depth, and through a link to a directory on the
// way; not another name in the same directories.
func TestAddPathsMindsWhereThePathsLead(t *testing.T) {
	if runtime.GOOS != "linux" {
		assert.False(t, New().AddPaths(t.TempDir()))
		return
	}
	base := t.TempDir()
	real := filepath.Join(base, "real")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "ws", ".git"), 0o755))
	require.NoError(t, os.Symlink(real, filepath.Join(base, "link")))
	path := filepath.Join(base, "link", "ws", ".git")
	watch := func() *Watch {
		w := NewEntries()
		require.True(t, w.AddPaths(path, filepath.Join(real, "ws", ".envrc")))
		t.Cleanup(w.Close)
		return w
	}
	w := watch()
	require.NoError(t, os.WriteFile(filepath.Join(real, "ws", "main.go"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(base, "other"), 0o755))
	assert.False(t, w.Changed(), "other names in the same directories")
	require.NoError(t, os.Rename(filepath.Join(real, "ws", ".git"), filepath.Join(real, "ws", "old")))
	assert.True(t, w.Changed(), "a component renamed away, beneath the link")
	w = watch()
	require.NoError(t, os.WriteFile(filepath.Join(real, "ws", ".envrc"), nil, 0o644))
	assert.True(t, w.Changed(), "a missing path made")
	w = watch()
	require.NoError(t, os.Remove(filepath.Join(base, "link")))
	assert.True(t, w.Changed(), "the link on the way removed")
	require.NoError(t, os.Symlink(real, filepath.Join(base, "link")))
	through := NewEntries()
	t.Cleanup(through.Close)
	require.True(t, through.AddPaths(path))
	require.NoError(t, os.Rename(filepath.Join(real, "ws"), filepath.Join(real, "ws2")))
	assert.True(t, through.Changed(), "a directory renamed away in the one the link leads to")
}
