package plan

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vtexec/vtexec/internal/dirwatch"
)

// LookPath finds the program name on path (a colon-separated list of
// directories) as vtexec runs programs: the first regular file with an
// execute bit, links followed. The checker finds programs with it, and
// the runner answers command -v with it, so both agree.
//
// Where it is found is kept while a watch of the path's directories, and
// of the directories holding them, has seen no change (an entry made,
// removed, renamed or its mode changed): every command looks its
// programs up, and the watch costs one read where the search costs a
// stat per directory. A name not found is looked for every time.
func LookPath(name, path string) (string, bool) {
	p, ok := LookProgram(name, path)
	return p.Path, ok
}

// Program is where LookProgram found a program, with what its look at
// the file saw, so that the caller need not look again: whether Path is
// itself a symbolic link, and the identity of the file it runs (links
// followed). Seen is false where the look cannot tell (Windows).
type Program struct {
	Path     string
	Seen     bool
	Link     bool
	Dev, Ino uint64
}

// LookProgram is LookPath with what the look at the program's file saw.
func LookProgram(name, path string) (Program, bool) {
	if name == "" || name == "." || name == ".." {
		return Program{}, false
	}
	return lookKept(name, path)
}

func lookPath(name, path string) (Program, bool) {
	p, _ := lookShadowed(name, path)
	return p, p.Path != ""
}

// lookShadowed returns where name is on path ("" if nowhere), and the
// files of that name before it that are not executable: made so, one
// of them would be found instead.
func lookShadowed(name, path string) (Program, []string) {
	var shadows []string
	var blockers blockerCheck
	dirwatch.Drain() // once for every directory's listing below
	for _, dir := range filepath.SplitList(path) {
		if blockers.blocks(dir) || !mayHold(dir, name) {
			continue
		}
		p := filepath.Join(dir, name)
		switch k, prog := lookFile(p); k {
		case executable:
			return prog, shadows
		case other:
			shadows = append(shadows, p)
		case unreachable:
			noteBlocked(dir)
		}
	}
	return Program{}, shadows
}

// kind is what a search path has under a program's name.
type kind int

const (
	missing     kind = iota
	executable       // a regular file with an execute bit
	other            // anything else: a directory, a file not executable
	unreachable      // missing for this user: a directory above may not be searched
)

// found keeps where programs were found, by search path and name.
var found = dirwatch.Kept[lookup, lookedUp]{Max: 512}

type lookup struct{ name, path string }

// lookedUp is where a program was found ("" nowhere), and the files of
// its name before that place that were not executable.
type lookedUp struct {
	path    string
	shadows []string
}

// still reports whether l is still where the program is. The watch of
// the path's directories sees entries come and go, not a file's mode
// changed: the file found must still be executable, and none before it
// have become so.
func (l lookedUp) still() (Program, bool) {
	var prog Program
	if l.path != "" {
		var k kind
		if k, prog = lookFile(l.path); k != executable {
			return Program{}, false
		}
	}
	for _, s := range l.shadows {
		if executableFile(s) {
			return Program{}, false
		}
	}
	return prog, true
}

// lookKept returns where name is on path, from what was kept or by
// looking, which it then keeps.
func lookKept(name, path string) (Program, bool) {
	key := lookup{name, path}
	if l, ok := found.Get(key); ok {
		if p, ok := l.still(); ok {
			return p, l.path != "" // "": kept as missing
		}
	}
	if !found.Again(key) {
		return lookPath(name, path)
	}
	w := searchPathWatch(path) // before the look: a change during it shows later
	p, shadows := lookShadowed(name, path)
	// A program missing is kept too: installing one changes a
	// directory of the path, which ends what was kept.
	found.Put(key, lookedUp{path: p.Path, shadows: shadows}, w)
	return p, p.Path != ""
}

// pathWatches are the watches of search paths, one for each, shared by
// the names found on it, and when a path could last not be watched.
var pathWatches struct {
	sync.Mutex
	m           map[string]*dirwatch.Watch
	unwatchable map[string]time.Time
}

// retryUnwatchable is how long a search path that could not be watched
// (a directory of it in one this user cannot read, such as another
// user's home) is not tried again: each try adds watches and removes
// them, which cost a stream of checks as much as 3% when it was tried
// for every name looked up. Its names are looked up without being kept
// meanwhile, as before.
const retryUnwatchable = time.Second

// watchTries counts tries to watch a search path, for tests.
var watchTries atomic.Int64

// searchPathWatch returns a share of the watch of path's directories,
// made anew once it has seen a change.
func searchPathWatch(path string) *dirwatch.Watch {
	pathWatches.Lock()
	defer pathWatches.Unlock()
	if w, ok := pathWatches.m[path]; ok {
		if !w.Changed() {
			return w.Share()
		}
		w.Close()
		delete(pathWatches.m, path)
	}
	if t, ok := pathWatches.unwatchable[path]; ok && time.Since(t) < retryUnwatchable {
		return nil
	}
	w := watchSearchPath(path)
	if w == nil {
		if pathWatches.unwatchable == nil || len(pathWatches.unwatchable) >= 16 {
			pathWatches.unwatchable = map[string]time.Time{}
		}
		pathWatches.unwatchable[path] = time.Now()
		return nil
	}
	delete(pathWatches.unwatchable, path)
	if pathWatches.m == nil || len(pathWatches.m) >= 16 {
		for p, old := range pathWatches.m {
			old.Close()
			delete(pathWatches.m, p)
		}
		pathWatches.m = map[string]*dirwatch.Watch{}
	}
	pathWatches.m[path] = w
	return w.Share()
}

// watchSearchPath watches the directories of path (links followed) and
// the directories that hold them, where a directory of path could be
// made, removed or replaced. It is nil where that cannot be had.
func watchSearchPath(path string) *dirwatch.Watch {
	watchTries.Add(1)
	w := dirwatch.NewEntries()
	if w == nil {
		return nil
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			w.Close()
			return nil
		}
		if !w.AddFollow(filepath.Dir(dir)) {
			// Its parent is not there (a ~/.local/bin before ~/.local is
			// made): the nearest directory above that is sees the first
			// missing one made.
			if !watchNearestAbove(w, filepath.Dir(dir)) {
				w.Close()
				return nil
			}
			continue
		}
		w.AddFollow(dir) // a directory not there yet shows in its parent
	}
	return w
}

// watchNearestAbove watches the nearest directory above dir that
// exists, where dir and the directories between are missing, and reports
// whether it did. The watch comes first and dir's absence is confirmed
// after, so that a directory made in between is not missed. A dir that
// is there but cannot be watched (a link that leads nowhere, a directory
// this user cannot search) is not.
func watchNearestAbove(w *dirwatch.Watch, dir string) bool {
	missing := dir
	for {
		up := filepath.Dir(missing)
		if up == missing {
			return false
		}
		if _, err := os.Lstat(up); err == nil {
			if !w.AddFollow(up) {
				return false
			}
			_, err := os.Lstat(missing)
			return errors.Is(err, fs.ErrNotExist)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		missing = up
	}
}

// A process that looks up many names (check --jsonl, a server) reads a
// search directory's names once instead of a stat per name: a name
// absent from the listing is not there while a watch of the directory
// (and of the one holding it, where it could be replaced) has seen no
// entry come or go. A name present is then looked at as before.
var listings struct {
	sync.Mutex
	m    map[string]*listing
	uses map[string]int // lookups in a directory not listed yet
}

type listing struct {
	names map[string]struct{}
	w     *dirwatch.Watch
}

// listAfter is how many lookups in a directory come before its names
// are read: a fresh process that looks up one program pays no listing.
const listAfter = 16

// maxListings bounds the directories listed at once.
const maxListings = 64

// mayHold reports whether dir may have an entry called name: false only
// when dir's names, read since its last change, lack it. The caller has
// read the watches' queue (dirwatch.Drain) just before.
func mayHold(dir, name string) bool {
	listings.Lock()
	if l := listings.m[dir]; l != nil {
		if !l.w.Seen() { // the queue was read by lookShadowed
			_, ok := l.names[name]
			listings.Unlock()
			return ok
		}
		l.w.Close()
		delete(listings.m, dir)
	}
	if listings.uses == nil {
		listings.uses = map[string]int{}
	}
	if listings.uses[dir]++; listings.uses[dir] < listAfter {
		listings.Unlock()
		return true
	}
	// Listed outside the lock (a system directory holds a thousand
	// names): lookups meanwhile, here and in other directories, go on
	// by stat instead of waiting.
	listings.uses[dir] = listingNow
	listings.Unlock()
	l := list(dir)
	listings.Lock()
	defer listings.Unlock()
	delete(listings.uses, dir)
	if l == nil {
		return true
	}
	if listings.m == nil || len(listings.m) >= maxListings {
		for d, old := range listings.m {
			old.w.Close()
			delete(listings.m, d)
		}
		listings.m = map[string]*listing{}
	}
	listings.m[dir] = l
	_, ok := l.names[name]
	return ok
}

// listingNow marks a directory being listed: its count of lookups
// cannot reach listAfter meanwhile.
const listingNow = math.MinInt / 2

// list reads the names in dir, watched from before the read; nil where
// it cannot be watched or read.
func list(dir string) *listing {
	if !filepath.IsAbs(dir) {
		return nil
	}
	w := dirwatch.NewEntries()
	if w == nil {
		return nil
	}
	if !w.AddFollow(dir) {
		// Not there (a ~/go/bin before anything is installed in it): it
		// holds no name while the nearest directory above it that is
		// there sees nothing made.
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) && watchNearestAbove(w, dir) {
			return &listing{names: map[string]struct{}{}, w: w}
		}
		w.Close()
		return nil
	}
	if !w.Add(filepath.Dir(dir)) {
		w.Close()
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		w.Close()
		return nil
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		w.Close()
		return nil
	}
	l := &listing{names: make(map[string]struct{}, len(names)), w: w}
	for _, n := range names {
		l.names[n] = struct{}{}
	}
	return l
}
