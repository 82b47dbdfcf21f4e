package plan

import (
	"path/filepath"
	"sync"
	"syscall"

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
	if name == "" || name == "." || name == ".." {
		return "", false
	}
	return lookups.get(name, path)
}

func lookPath(name, path string) (string, bool) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if executableFile(p) {
			return p, true
		}
	}
	return "", false
}

// executableFile reports whether p (links followed) is a regular file
// with an execute bit: os.Stat without its allocations, since every
// command looks its programs up.
func executableFile(p string) bool {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		return err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Mode&0o111 != 0
	}
}

// lookups keeps, per search path, where programs were found.
var lookups lookupCache

// maxLookupPaths bounds the search paths kept.
const maxLookupPaths = 8

type lookupCache struct {
	mu sync.Mutex
	m  map[string]*foundOn
}

// foundOn is where programs were found on one search path, and the watch
// that keeps it true.
type foundOn struct {
	watch *dirwatch.Watch
	found map[string]string
}

// get returns where name is on path, from what was kept or by looking,
// which it then keeps.
func (c *lookupCache) get(name, path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.m[path]
	if f != nil && f.watch.Changed() {
		f.watch.Close()
		f = nil
	}
	if f == nil {
		w := watchSearchPath(path)
		if w == nil {
			return lookPath(name, path)
		}
		if c.m == nil || len(c.m) >= maxLookupPaths {
			for _, old := range c.m {
				old.watch.Close()
			}
			c.m = map[string]*foundOn{}
		}
		f = &foundOn{watch: w, found: map[string]string{}}
		c.m[path] = f
	}
	if p, ok := f.found[name]; ok {
		return p, true
	}
	// The watch began before this look: a change during it shows later.
	p, ok := lookPath(name, path)
	if ok {
		f.found[name] = p
	}
	return p, ok
}

// watchSearchPath watches the directories of path (links followed) and
// the directories that hold them, where a directory of path could be
// made, removed or replaced. It is nil where that cannot be had.
func watchSearchPath(path string) *dirwatch.Watch {
	w := dirwatch.New()
	if w == nil {
		return nil
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) || !w.AddFollow(filepath.Dir(dir)) {
			w.Close()
			return nil
		}
		w.AddFollow(dir) // a directory not there yet shows in its parent
	}
	return w
}
