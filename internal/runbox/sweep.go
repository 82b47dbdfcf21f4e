package runbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// A workspace's directory (its caches, up to maxCache) and its runs'
// directory are kept between runs, named by a hash of its root. They
// outlive the workspace unless swept: on a machine where agents work in
// throwaway checkouts and temporary directories they pile up by the
// thousand. A workspace's directory is swept when:
const (
	// its root, recorded in it, is gone and no run began for this long;
	goneAfter = time.Hour
	// it holds no record of its root (an earlier vtexec made it) and no
	// run began for this long;
	unrecordedAfter = 24 * time.Hour
	// no run began in it for this long, its root there or not.
	unusedAfter = 30 * 24 * time.Hour
)

// A runs' directory (runsBase/r-HASH, where the runs' HOME and TMPDIR
// are made) is shared by the runs of a root whatever TMPDIR each has:
// no workspace directory's lock covers it. It is removed only by rmdir,
// when empty, so never under a run (a run that finds it gone makes it
// again), with what killed runs left in it first (sweepRuns). A sweep
// removes it with its workspace's directory, and alone once no run began
// or ended in it for runsIdleAfter: one whose workspace directory went
// another way (a TMPDIR cleaner, another TMPDIR) is not left for good.
const runsIdleAfter = 24 * time.Hour

// rootRecord is the file in a workspace's directory that names its root;
// usedStamp the file whose time is when a run last tidied it (at most
// every cacheCheckEvery).
const (
	rootRecord = "root"
	usedStamp  = "cache.checked"
)

// A sweep looks at up to sweepScan entries (each a file system lookup,
// cold on a large directory) and removes up to sweepMax
// directories; every workspace's tidy (on its first run, then at most
// every cacheCheckEvery) starts one, so what is left is cleared as fast
// as it is made.
const sweepMax = 16

var sweepScan = 256 // a variable for tests

// trashPrefix names a swept directory, moved aside (under the
// workspace's lock) before it is removed: a removal a process's exit cut
// short is finished by a later sweep.
const trashPrefix = "trash-"

// sweeping keeps one sweep at a time in a process.
var sweeping sync.Mutex

// sweepLater sweeps base and runsBase off the caller's path (not own,
// the caller's workspace directory, nor ownRuns, its runs' directory).
// A process that ends first cuts it short; what it moved aside a later
// sweep removes.
func sweepLater(base, runsBase, own, ownRuns string) {
	go func() {
		if !sweeping.TryLock() {
			return
		}
		defer sweeping.Unlock()
		now := time.Now()
		sweepWorkspaces(base, runsBase, own, now)
		if runsBase != base {
			sweepRunsDirs(runsBase, ownRuns, now)
		}
	}()
}

// sweepWorkspaces removes the stale workspace directories in base (not
// own) with their runs' directories in runsBase, what earlier sweeps
// moved aside, and idle runs' directories in base (where runsBase is
// base). It returns how many it removed.
func sweepWorkspaces(base, runsBase, own string, now time.Time) int {
	ownRuns := filepath.Join(runsBase, runsDirName(filepath.Base(own)))
	return sweepDir(base, func(name, path string) bool {
		switch {
		case path == own || path == ownRuns:
			return false
		case strings.HasPrefix(name, trashPrefix):
			removeTree(path)
			return true
		case strings.HasPrefix(name, "workspace-"):
			return staleWorkspace(path, now) && sweepWorkspace(path, runsBase, now)
		case strings.HasPrefix(name, runsPrefix):
			return sweepIdleRuns(path, now)
		}
		return false
	})
}

// sweepRunsDirs removes the idle runs' directories in runsBase (see
// runsIdleAfter), not own, and returns how many it removed.
func sweepRunsDirs(runsBase, own string, now time.Time) int {
	return sweepDir(runsBase, func(name, path string) bool {
		return path != own && strings.HasPrefix(name, runsPrefix) && sweepIdleRuns(path, now)
	})
}

// sweepDir offers sweep the directories in dir, up to sweepScan of them
// from a place chosen at random (a sweep the process's exit cuts short
// still lets the next ones reach every entry), until it has removed
// sweepMax, and returns how many it removed.
func sweepDir(dir string, sweep func(name, path string) bool) int {
	entries, err := listDir(dir)
	if err != nil || len(entries) == 0 {
		return 0
	}
	start := rand.IntN(len(entries))
	removed := 0
	for i := 0; i < len(entries) && i < sweepScan && removed < sweepMax; i++ {
		e := entries[(start+i)%len(entries)]
		if e.IsDir() && sweep(e.Name(), filepath.Join(dir, e.Name())) {
			removed++
		}
	}
	return removed
}

// sweepIdleRuns removes the runs' directory runs if no run began or
// ended in it for runsIdleAfter and nothing but what killed runs left is
// in it, and says whether it did.
func sweepIdleRuns(runs string, now time.Time) bool {
	fi, err := os.Lstat(runs)
	if err != nil || !fi.IsDir() || now.Sub(fi.ModTime()) < runsIdleAfter {
		return false
	}
	return removeRuns(runs)
}

// removeRuns removes the runs' directory runs unless a run is in it:
// what killed runs left first (sweepRuns), then the directory itself if
// that emptied it.
func removeRuns(runs string) bool {
	sweepRuns(runs)
	return os.Remove(runs) == nil
}

// listDir is dir's entries in the directory's order: not sorted, which
// in a directory of 24,000 entries cost as much as listing them.
func listDir(dir string) ([]os.DirEntry, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// sweepWorkspace removes the workspace directory dir and its runs'
// directory unless a run holds it, and says whether it did.
func sweepWorkspace(dir, runsBase string, now time.Time) bool {
	release, ok := fsutil.TakeDir(dir)
	if !ok {
		return false // a run holds it
	}
	// Under the lock no run can begin in it: stale still?
	if !staleWorkspace(dir, now) {
		release()
		return false
	}
	if runs := runsDirName(filepath.Base(dir)); runs != "" {
		// Runs of the root under another TMPDIR may be in it.
		removeRuns(filepath.Join(runsBase, runs))
	}
	trash := filepath.Join(filepath.Dir(dir), trashPrefix+filepath.Base(dir)+"-"+strconv.FormatInt(now.UnixNano(), 36))
	err := os.Rename(dir, trash)
	release()
	if err != nil {
		return false
	}
	removeTree(trash)
	return true
}

// staleWorkspace reports whether the workspace directory dir may be
// swept (see goneAfter).
func staleWorkspace(dir string, now time.Time) bool {
	fi, err := os.Lstat(filepath.Join(dir, usedStamp))
	if err != nil {
		if fi, err = os.Lstat(dir); err != nil {
			return false
		}
	}
	idle := now.Sub(fi.ModTime())
	switch {
	case idle < goneAfter:
		return false
	case idle > unusedAfter:
		return true
	}
	root, ok := recordedRoot(dir)
	if !ok {
		return idle > unrecordedAfter
	}
	_, err = os.Lstat(root)
	return errors.Is(err, fs.ErrNotExist)
}

// recordedRoot is the root dir's record names, if it names the root
// whose directory dir is.
func recordedRoot(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, rootRecord))
	if err != nil || len(data) == 0 {
		return "", false
	}
	root := string(data)
	return root, filepath.Base(dir) == workspaceDirName(root)
}

// workspaceDirName is the name of the directory of the workspace at root.
func workspaceDirName(root string) string {
	sum := sha256.Sum256([]byte(root))
	return "workspace-" + hex.EncodeToString(sum[:12])
}

// runsDirName is the name of the runs' directory of the workspace whose
// directory is called name (a shorter name, for Unix sockets' sake: see
// makeRunDirs); "" for a name not made by workspaceDirName.
func runsDirName(name string) string {
	sum, ok := strings.CutPrefix(name, "workspace-")
	if !ok || len(sum) < 16 {
		return ""
	}
	return runsPrefix + sum[:16]
}

// runsPrefix begins the name of every runs' directory.
const runsPrefix = "r-"

// recordRoot writes the record of root in its workspace's directory dir
// once.
func recordRoot(dir, root string) {
	rec := filepath.Join(dir, rootRecord)
	if _, err := os.Lstat(rec); errors.Is(err, fs.ErrNotExist) {
		fsutil.WriteAtomicNoSync(rec, []byte(root), 0o600)
	}
}
