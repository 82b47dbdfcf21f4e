package workspace

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/vtexec/vtexec/internal/dirwatch"
)

// Every request names its workspace root, and resolving it takes an
// lstat per component. A root's real path is kept while a watch of the
// directories on the way to it, as named and as resolved, has seen no
// change: a component can become another directory or a link, or go,
// only by a change in the directory that holds it.

// resolvedRoots keeps roots' real paths, by the absolute path named.
var resolvedRoots = dirwatch.Kept[string, string]{Max: 64}

// errNotDir is a root that is not a directory.
var errNotDir = errors.New("is not a directory")

// resolveRoot returns the real path of the directory at abs.
func resolveRoot(abs string) (string, error) {
	if real, ok := resolvedRoots.Get(abs); ok {
		return real, nil
	}
	if !resolvedRoots.Again(abs) {
		return evalRoot(abs)
	}
	// Entries only: a component changes only by an entry made, removed
	// or renamed in the directory that holds it.
	w := dirwatch.NewEntries()
	if w != nil && !watchAncestors(w, abs) {
		w.Close()
		w = nil
	}
	real, err := evalRoot(abs)
	if err != nil || w == nil || !watchAncestors(w, real) {
		w.Close()
		return real, err
	}
	resolvedRoots.Put(abs, real, w)
	return real, nil
}

// evalRoot resolves abs and requires a directory there.
func evalRoot(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
			err = errNotDir
		}
	}
	return real, err
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
