package gitrepo

import (
	"os"
	"path/filepath"
	"time"

	"github.com/vtexec/vtexec/internal/dirwatch"
)

// Walking the git directory is vtexec's own look at the file system, so
// it is done again unless no directory it read has changed: the walk
// keeps each directory's identity, taken before it was read, and what it
// found (links to resolve, nested git directories to check), which the
// validator checks again every time.

// WalkLimit bounds the entries of a git directory a walk reads.
const WalkLimit = 200000

// WalkItem is something the walk found.
type WalkItem struct {
	Path   string
	Nested bool // a nested git directory, else a symbolic link
}

// Walk is what a walk of a git directory found.
type Walk struct {
	Items []WalkItem
	// TooLarge: the directory holds more than WalkLimit entries, and
	// Items are not all there is.
	TooLarge bool

	dirs []fileDep
	// watch, where inotify can be had, watches every directory in dirs
	// since before it was read; nil means their identities are compared.
	watch *dirwatch.Watch
}

// WalkGitDir walks root, or returns the last walk if none of the
// directories it read has changed. The first walk of a root keeps the
// directories' identities; a root walked again is walked once more with
// an inotify watch (worth it for a process that checks git commands
// again, wasted on one that checks once), which then stands for them.
func (c *Cache) WalkGitDir(root string) *Walk {
	c.mu.Lock()
	w := c.walks[root]
	c.mu.Unlock()
	var watch *dirwatch.Watch
	switch {
	case w == nil:
	case w.watch != nil:
		if !w.watch.Changed() {
			return w
		}
		watch = dirwatch.New()
	default:
		if watch = dirwatch.New(); watch == nil && unchanged(w.dirs) {
			return w // no inotify here: the identities stand
		}
	}
	w = walkGitDir(root, watch)
	now := time.Now()
	for _, d := range w.dirs {
		if d.err || d.id.Recent(now, RacyWindow) {
			w.watch.Close()
			w.watch = nil
			return w
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.walks == nil || len(c.walks) >= cacheSize {
		for _, old := range c.walks {
			old.watch.Close()
		}
		c.walks = map[string]*Walk{}
	}
	if old := c.walks[root]; old != nil {
		old.watch.Close()
	}
	c.walks[root] = w
	return w
}

// walkGitDir walks the git directory root, adding each directory to
// watch (if any) before it reads it. Links are not followed.
func walkGitDir(root string, watch *dirwatch.Watch) *Walk {
	w := &Walk{watch: watch}
	read := func(d string) []os.DirEntry {
		if w.watch != nil && !w.watch.Add(d) {
			w.watch.Close()
			w.watch = nil
		}
		dep := fileDep{path: d}
		dep.identify()
		w.dirs = append(w.dirs, dep)
		entries, _ := os.ReadDir(d) // one it cannot read holds nothing git reads either
		return entries
	}
	seen := 0
	stack := []string{root}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range read(d) {
			if seen++; seen > WalkLimit {
				w.TooLarge = true
				return w
			}
			p := filepath.Join(d, e.Name())
			switch {
			case e.Type()&os.ModeSymlink != 0:
				w.Items = append(w.Items, WalkItem{Path: p})
			case e.IsDir() && e.Name() == "hooks" && DirLike(d):
				// hooks never run (core.hooksPath is overridden)
			case e.IsDir():
				if DirLike(p) {
					// A submodule's or worktree's git directory: git
					// reads its objects and common directory.
					w.Items = append(w.Items, WalkItem{Path: p, Nested: true})
				}
				stack = append(stack, p)
			}
		}
	}
	return w
}
