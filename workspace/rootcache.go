package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/vtexec/vtexec/internal/dirwatch"
)

// Every request names its workspace root, and resolving it takes an
// lstat per component. A root's real path is kept while a watch of the
// directories on the way to it, as named and as resolved, has seen no
// change: a component can become another directory or a link, or go,
// only by a change in the directory that holds it.

var resolvedRoots rootCache

// maxKeptRoots bounds the roots kept.
const maxKeptRoots = 64

type rootCache struct {
	mu sync.Mutex
	m  map[string]keptRoot
}

type keptRoot struct {
	real  string
	watch *dirwatch.Watch
}

// errNotDir is a root that is not a directory.
var errNotDir = errors.New("is not a directory")

// resolve returns the real path of the directory at abs.
func (c *rootCache) resolve(abs string) (string, error) {
	c.mu.Lock()
	k, ok := c.m[abs]
	c.mu.Unlock()
	if ok && !k.watch.Changed() {
		return k.real, nil
	}
	w := dirwatch.New()
	if w != nil && !watchAncestors(w, abs) {
		w.Close()
		w = nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
			err = errNotDir
		}
	}
	if err != nil || w == nil || !watchAncestors(w, real) {
		w.Close()
		return real, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxKeptRoots {
		for _, old := range c.m {
			old.watch.Close()
		}
		c.m = map[string]keptRoot{}
	}
	if old, ok := c.m[abs]; ok {
		old.watch.Close()
	}
	c.m[abs] = keptRoot{real: real, watch: w}
	return real, nil
}

// watchAncestors watches every directory holding a component of p.
func watchAncestors(w *dirwatch.Watch, p string) bool {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if !w.AddFollow(d) {
			return false
		}
		if d == "/" || d == "." {
			return true
		}
	}
}
