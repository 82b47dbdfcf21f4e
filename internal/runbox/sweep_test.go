//go:build !windows

package runbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// kept is a workspace directory as an earlier vtexec left it: caches,
// a stamp of its last run idle ago, a runs' directory, and the record
// of root if record.
func kept(t *testing.T, base, runsBase, root string, idle time.Duration, record bool) (dir, runs string) {
	t.Helper()
	dir = filepath.Join(base, workspaceDirName(root))
	runs = filepath.Join(runsBase, runsDirName(filepath.Base(dir)))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cache", "go-build", "0a"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cache", "go-build", "0a", "entry"), []byte("x"), 0o600))
	// What a run killed two days ago left.
	require.NoError(t, os.MkdirAll(filepath.Join(runs, "old-run", "tmp"), 0o700))
	age(t, filepath.Join(runs, "old-run"), 48*time.Hour)
	if record {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rootRecord), []byte(root), 0o600))
	}
	stamp := filepath.Join(dir, usedStamp)
	require.NoError(t, os.WriteFile(stamp, nil, 0o644))
	then := time.Now().Add(-idle)
	require.NoError(t, os.Chtimes(stamp, then, then))
	return dir, runs
}

// age sets p's times to ago before now.
func age(t *testing.T, p string, ago time.Duration) {
	t.Helper()
	then := time.Now().Add(-ago)
	require.NoError(t, os.Chtimes(p, then, then))
}

func TestSweepRemovesWhatNoWorkspaceUses(t *testing.T) {
	base, runsBase, roots := t.TempDir(), t.TempDir(), t.TempDir()
	present := func(name string) string {
		p := filepath.Join(roots, name)
		require.NoError(t, os.Mkdir(p, 0o700))
		return p
	}
	gone := func(name string) string { return filepath.Join(roots, name) }

	goneLong, goneLongRuns := kept(t, base, runsBase, gone("a"), 2*time.Hour, true)
	goneNow, goneNowRuns := kept(t, base, runsBase, gone("b"), 10*time.Minute, true)
	idleDays, _ := kept(t, base, runsBase, present("c"), 3*24*time.Hour, true)
	idleMonth, idleMonthRuns := kept(t, base, runsBase, present("d"), 31*24*time.Hour, true)
	unrecordedOld, _ := kept(t, base, runsBase, present("e"), 2*24*time.Hour, false)
	unrecordedNew, _ := kept(t, base, runsBase, present("f"), 2*time.Hour, false)
	own, _ := kept(t, base, runsBase, gone("g"), 2*time.Hour, true)
	held, heldRuns := kept(t, base, runsBase, gone("h"), 2*time.Hour, true)
	// A record that names another root is no record.
	misnamed, _ := kept(t, base, runsBase, gone("i"), 2*time.Hour, false)
	require.NoError(t, os.WriteFile(filepath.Join(misnamed, rootRecord), []byte(gone("other")), 0o600))
	// What a sweep cut short moved aside.
	trash := filepath.Join(base, trashPrefix+"workspace-00-1")
	require.NoError(t, os.MkdirAll(filepath.Join(trash, "cache", "x"), 0o700))
	// Not a workspace's directory.
	other := filepath.Join(base, "workspace-file")
	require.NoError(t, os.WriteFile(other, nil, 0o600))

	release, err := fsutil.ShareDir(held)
	require.NoError(t, err)
	assert.Equal(t, 4, sweepWorkspaces(base, runsBase, own, time.Now()))

	for _, p := range []string{goneLong, goneLongRuns, idleMonth, idleMonthRuns, unrecordedOld, trash} {
		assert.NoDirExists(t, p)
	}
	for _, p := range []string{goneNow, goneNowRuns, idleDays, unrecordedNew, own, held, heldRuns, misnamed} {
		assert.DirExists(t, p)
	}
	assert.FileExists(t, other)
	left, err := os.ReadDir(base)
	require.NoError(t, err)
	for _, e := range left {
		assert.False(t, strings.HasPrefix(e.Name(), trashPrefix), "left moved aside: %s", e.Name())
	}

	// Once its run ends, the held one goes too.
	release()
	assert.Equal(t, 1, sweepWorkspaces(base, runsBase, own, time.Now()))
	assert.NoDirExists(t, held)
	assert.NoDirExists(t, heldRuns)
}

func TestSweepRemovesAtMostSweepMax(t *testing.T) {
	base, runsBase, roots := t.TempDir(), t.TempDir(), t.TempDir()
	for i := range sweepMax + 3 {
		kept(t, base, runsBase, filepath.Join(roots, "gone", string(rune('a'+i))), 2*time.Hour, true)
	}
	assert.Equal(t, sweepMax, sweepWorkspaces(base, runsBase, "", time.Now()))
	assert.Equal(t, 3, sweepWorkspaces(base, runsBase, "", time.Now()))
	assert.Equal(t, 0, sweepWorkspaces(base, runsBase, "", time.Now()))
}

// Sweeps that each look at a few entries reach every one in the end:
// the one stale directory here is listed last, where a sweep that
// always began at the first entry would never look.
func TestSweepsReachEveryEntry(t *testing.T) {
	base, runsBase, roots := t.TempDir(), t.TempDir(), t.TempDir()
	defer func(n int) { sweepScan = n }(sweepScan)
	sweepScan = 4
	for i := range 20 {
		kept(t, base, runsBase, filepath.Join(roots, "gone", strconv.Itoa(i)), 10*time.Minute, true)
	}
	entries, err := listDir(base)
	require.NoError(t, err)
	last := filepath.Join(base, entries[len(entries)-1].Name())
	then := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(last, usedStamp), then, then))
	for range 200 {
		sweepWorkspaces(base, runsBase, "", time.Now())
	}
	assert.NoDirExists(t, last)
	entries, err = os.ReadDir(base)
	require.NoError(t, err)
	assert.Len(t, entries, 19)
}

// A run holds its workspace's directory from the moment it is made: a
// sweep leaves it, and the workspace's root is recorded for later ones.
func TestRunHoldsItsWorkspaceDirectory(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	root := t.TempDir()
	sweeping.Lock() // the sweep a run starts is not this test's
	defer sweeping.Unlock()
	d, err := makeRunDirs(root)
	require.NoError(t, err)
	base, err := privateBase()
	require.NoError(t, err)
	dir := filepath.Join(base, workspaceDirName(root))
	rec, err := os.ReadFile(filepath.Join(dir, rootRecord))
	require.NoError(t, err)
	assert.Equal(t, root, string(rec))

	runsBase := memoryBase()
	if runsBase == "" {
		runsBase = base
	}
	require.NoError(t, os.RemoveAll(root))
	then := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, usedStamp), then, then))
	assert.Equal(t, 0, sweepWorkspaces(base, runsBase, "", time.Now()))
	assert.DirExists(t, d.cache)
	assert.DirExists(t, d.tmp)

	d.remove()
	removals.Wait()
	assert.Equal(t, 1, sweepWorkspaces(base, runsBase, "", time.Now()))
	assert.NoDirExists(t, dir)
	assert.NoDirExists(t, d.runs)
}

// A runs' directory no run began or ended in for a day goes, with what
// killed runs left in it, whether or not a workspace directory names it
// (a TMPDIR cleaner may have taken that); one a run is in stays.
func TestSweepRemovesIdleRunsDirectories(t *testing.T) {
	for _, shared := range []bool{false, true} {
		base := t.TempDir()
		runsBase := base
		if !shared {
			runsBase = t.TempDir()
		}
		runsDir := func(name string, idle time.Duration, content ...string) string {
			p := filepath.Join(runsBase, runsPrefix+name)
			require.NoError(t, os.Mkdir(p, 0o700))
			for _, c := range content {
				sub := filepath.Join(p, c)
				require.NoError(t, os.MkdirAll(filepath.Join(sub, "tmp"), 0o700))
				if strings.HasPrefix(c, "killed") {
					age(t, sub, 48*time.Hour)
				}
			}
			age(t, p, idle)
			return p
		}
		empty := runsDir("empty", 48*time.Hour)
		killed := runsDir("killed", 48*time.Hour, "killed-run")
		running := runsDir("running", 48*time.Hour, "killed-run", "a-run")
		recent := runsDir("recent", time.Hour)
		own := filepath.Join(base, "workspace-"+strings.Repeat("0", 24))
		require.NoError(t, os.Mkdir(own, 0o700))
		ownRuns := runsDir(strings.Repeat("0", 16), 48*time.Hour)
		file := filepath.Join(runsBase, runsPrefix+"file")
		require.NoError(t, os.WriteFile(file, nil, 0o600))

		removed := sweepWorkspaces(base, runsBase, own, time.Now())
		if !shared {
			removed += sweepRunsDirs(runsBase, ownRuns, time.Now())
		}
		assert.Equal(t, 2, removed, "shared base %v", shared)
		assert.NoDirExists(t, empty)
		assert.NoDirExists(t, killed)
		assert.DirExists(t, filepath.Join(running, "a-run", "tmp"))
		assert.NoDirExists(t, filepath.Join(running, "killed-run"))
		assert.DirExists(t, recent)
		assert.DirExists(t, ownRuns)
		assert.FileExists(t, file)
	}
}

// A swept workspace's runs' directory is shared with the runs of its
// root under another TMPDIR: one of those in it keeps it.
func TestSweptWorkspaceLeavesARunOfAnotherTMPDIR(t *testing.T) {
	base, runsBase, roots := t.TempDir(), t.TempDir(), t.TempDir()
	dir, runs := kept(t, base, runsBase, filepath.Join(roots, "gone"), 2*time.Hour, true)
	require.NoError(t, os.MkdirAll(filepath.Join(runs, "a-run", "tmp"), 0o700))
	assert.Equal(t, 1, sweepWorkspaces(base, runsBase, "", time.Now()))
	assert.NoDirExists(t, dir)
	assert.DirExists(t, filepath.Join(runs, "a-run", "tmp"))
	assert.NoDirExists(t, filepath.Join(runs, "old-run"))
}

// A run whose runs' directory a sweep removed makes it again.
func TestRunMakesItsRunsDirectoryAgain(t *testing.T) {
	runs := filepath.Join(t.TempDir(), runsPrefix+"swept")
	run, err := makeRun(runs)
	require.NoError(t, err)
	assert.DirExists(t, run)
	assert.Equal(t, runs, filepath.Dir(run))
}

// A run holds its directory while it lasts: the sweep of what killed
// runs left (a day old) leaves a run of more than a day alone, and takes
// it once it has ended without removing it (its vtexec killed).
func TestSweepLeavesARunOfMoreThanADay(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	sweeping.Lock() // the sweep a run starts is not this test's
	defer sweeping.Unlock()
	d, err := makeRunDirs(t.TempDir())
	require.NoError(t, err)
	killed := filepath.Join(d.runs, "killed-run")
	require.NoError(t, os.MkdirAll(filepath.Join(killed, "tmp"), 0o700))
	for _, p := range []string{d.home, killed} {
		age(t, p, 48*time.Hour)
	}
	sweepRuns(d.runs)
	assert.DirExists(t, d.tmp, "a run of two days goes on")
	assert.NoDirExists(t, killed)

	// Ended, its directory left as a killed vtexec leaves it: no longer
	// held, it goes.
	d.remove()
	removals.Wait()
	require.NoError(t, os.MkdirAll(filepath.Join(d.home, "tmp"), 0o700))
	age(t, d.home, 48*time.Hour)
	sweepRuns(d.runs)
	assert.NoDirExists(t, d.home)
}
