package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/vtexec/vtexec/internal/dirwatch"

	"github.com/vtexec/vtexec/pathrules"
)

// Access says how a path will be used.
type Access int

const (
	// Read is for paths that are only read or listed.
	Read Access = iota
	// Write is for paths that are created, changed or removed.
	Write
)

const (
	maxPathLen     = 4096 // PATH_MAX on Linux
	maxNameLen     = 255  // NAME_MAX on Linux
	maxSymlinkHops = 40   // MAXSYMLINKS on Linux
)

// Workspace is a root directory and a current directory inside it.
// The zero value is not usable; call New.
type Workspace struct {
	root  string
	cwd   string
	extra []extraRoot
	// askNames are the names a write must ask about (see AskNames).
	askNames []string
	// linked are the workspace paths a link inside a protected place
	// leads to, found on the first write checked (see linkedTargets);
	// shared by clones.
	linked *linkedSet
	// budget bounds the walks and globs of one request's check; shared
	// by clones.
	budget *Budget
}

type linkedSet struct {
	once sync.Once
	m    map[string]string
}

// DefaultAskNames are the names of agent and editor configuration, read
// by programs that run code from it later: Claude Code, Codex, Gemini
// CLI, Cursor, VS Code and JetBrains settings, MCP server lists, direnv
// scripts, git attributes (which pick filter and diff programs). A name
// matches a path component at any depth, case-insensitively.
var DefaultAskNames = func() []string {
	names := make([]string, len(ConfigNames))
	for i, n := range ConfigNames {
		names[i] = strings.TrimSuffix(n, "/")
	}
	return names
}()

// ConfigNames are the same names, a trailing "/" marking a directory:
// the one list the validators, the kernel box (ProtectedNames) and the
// hook take them from.
var ConfigNames = []string{".claude/", ".codex/", ".gemini/", ".cursor/", ".vscode/", ".idea/", ".mcp.json", ".envrc", ".gitattributes"}

// ProtectedNames are the names at the workspace root that hold code or
// configuration something runs later: vtexec's own files and
// ConfigNames. The kernel box keeps them read-only for every command; a
// missing directory name gets an empty placeholder directory (made once,
// then left), a missing file name is left to the validators. A trailing
// "/" marks a directory.
var ProtectedNames = append([]string{".vtexec/"}, ConfigNames...)

// extraRoot is a directory outside the root that policy grants.
type extraRoot struct {
	path     string
	writable bool
}

// New makes a Workspace rooted at dir, which must be an existing directory
// other than "/". The root is stored as its real path, symlinks resolved.
// The current directory starts at the root.
func New(dir string) (*Workspace, error) {
	if dir == "" {
		return nil, errors.New("workspace root is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", dir, err)
	}
	real, err := resolveRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", dir, err)
	}
	if isStart(real) {
		return nil, errors.New("workspace root may not be " + real + ": choose a project directory")
	}
	return &Workspace{root: real, cwd: real, askNames: DefaultAskNames, linked: &linkedSet{}}, nil
}

// AddAskNames adds names a write must ask about: a plain name matches a
// path component at any depth; a name with a "/" inside, or ending in
// one, is a path relative to the root (and what lies below it).
func (w *Workspace) AddAskNames(names ...string) {
	w.askNames = append(w.askNames[:len(w.askNames):len(w.askNames)], names...)
}

// AddRoot grants access to another directory tree, read-only unless
// writable. Paths inside it resolve like paths inside the root (the same
// protected names apply); the current directory stays inside the root.
func (w *Workspace) AddRoot(dir string, writable bool) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("extra root %q must be an absolute path", dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("extra root %q: %w", dir, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return fmt.Errorf("extra root %q is not a directory", dir)
	}
	if real == "/" {
		return errors.New("extra root may not be /")
	}
	w.extra = append(w.extra[:len(w.extra):len(w.extra)], extraRoot{path: real, writable: writable})
	return nil
}

// Root returns the real path of the workspace root.
func (w *Workspace) Root() string { return w.root }

// Cwd returns the real path of the current directory.
func (w *Workspace) Cwd() string { return w.cwd }

// Clone returns an independent copy with the same root and current directory.
func (w *Workspace) Clone() *Workspace {
	c := *w
	return &c
}

// Chdir moves the current directory to path, which must resolve to an
// existing directory inside the root.
func (w *Workspace) Chdir(path string) error {
	real, err := w.Resolve(path, Read)
	if err != nil {
		return err
	}
	if !within(w.root, real) {
		return &BoundaryError{Code: Outside, Path: path, Resolved: real, Root: w.root, Reason: "the current directory must stay inside the workspace root"}
	}
	fi, err := lstat(real) // real has no links left
	if err != nil {
		return &BoundaryError{Code: Invalid, Path: path, Resolved: real, Root: w.root, Reason: "no such directory"}
	}
	if !fi.IsDir() {
		return &BoundaryError{Code: Invalid, Path: path, Resolved: real, Root: w.root, Reason: "not a directory"}
	}
	w.cwd = real
	return nil
}

// ChdirPlanned is Chdir for a directory that may not exist yet, so that a
// list which creates it first (mkdir gen && cd gen && ...) can be checked:
// a missing path must still resolve inside the root. Whoever runs such a
// list must check the later steps again when the directory exists.
func (w *Workspace) ChdirPlanned(path string) error {
	real, err := w.Resolve(path, Read)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(real); within(w.root, real) && errors.Is(err, fs.ErrNotExist) {
		w.cwd = real
		return nil
	}
	return w.Chdir(path)
}

// Rel returns real (an absolute path inside the root) relative to the root,
// for display; "." for the root itself.
func (w *Workspace) Rel(real string) string {
	rel, err := filepath.Rel(w.root, real)
	if err != nil {
		return real
	}
	return rel
}

// Contains reports whether the absolute, symlink-free path real is the root
// or lies below it, comparing whole path components. A relative path, or one
// with a ".." component, is never contained.
func (w *Workspace) Contains(real string) bool {
	if !filepath.IsAbs(real) {
		return false
	}
	for _, c := range splitPath(real) {
		if c == ".." {
			return false
		}
	}
	return within(w.root, real)
}

// Resolve returns the real path that path names, following every symlink,
// and checks that it lies inside the root. A path that does not exist yet is
// resolved through its deepest existing ancestor; the missing remainder may
// not contain "..". With access Write the result must also not be
// protected. Errors are *BoundaryError.
func (w *Workspace) Resolve(path string, access Access) (string, error) {
	fail := func(code Code, resolved, reason string) (string, error) {
		return "", &BoundaryError{Code: code, Path: path, Resolved: resolved, Root: w.root, Reason: reason}
	}
	switch {
	case path == "":
		return fail(Invalid, "", "empty path")
	case strings.IndexByte(path, 0) >= 0:
		return fail(Invalid, "", "path contains a NUL byte")
	case len(path) > maxPathLen:
		return fail(Invalid, "", fmt.Sprintf("path longer than %d bytes", maxPathLen))
	}
	given := path
	if winPaths {
		var why string
		if given, why = pathrules.WindowsOperand(path); why != "" {
			return fail(Invalid, "", "on Windows "+why)
		}
	}
	full := given
	if !isAbs(full) {
		full = w.cwd + sep() + full
	}
	if winPaths {
		full = pathrules.WindowsClean(full) // Windows takes ".." by the text
	}
	if why := nameRefusal(full); why != "" {
		return fail(Invalid, "", why)
	}
	real, err := w.walkFull(full)
	if err != nil {
		var we *walkError
		if errors.As(err, &we) {
			if dir := filepath.Dir(we.at); we.unreadable && !within("/proc", dir) {
				if root, _ := w.rootOf(dir); root == "" {
					// In a directory outside every root: wherever the
					// rest would lead, the path is refused as outside.
					return fail(Outside, we.at, "path is outside the workspace (and "+dir+" may not be read)")
				}
			}
			return fail(we.code, we.at, we.reason)
		}
		return fail(Invalid, "", err.Error())
	}
	root, writable := w.rootOf(real)
	if root == "" {
		return fail(Outside, real, "path is outside the workspace")
	}
	if access == Write {
		if !writable {
			return fail(Protected, real, reasonReadOnlyRoot)
		}
		if protectedIn(root, real) {
			return fail(Protected, real, "path is write-protected")
		}
		if link := w.linkedTo(real); link != "" {
			return fail(Protected, real, "path is what "+link+", a link in a write-protected place, leads to: writing it would change what is read there")
		}
		if name := w.askName(root, real); name != "" {
			return fail(AskFirst, real, "path is in "+name+", agent or editor configuration that runs code later")
		}
		// A write may replace the last component itself (cp
		// --remove-destination, mv, sed -i): where a symlink sits
		// matters as much as where it points.
		if loc, ok := linkLocation(full); ok {
			switch r, wr := w.rootOf(loc); {
			case r == "":
				return fail(Outside, loc, "path is a symbolic link outside the workspace; a write could replace the link itself")
			case !wr || protectedIn(r, loc):
				return fail(Protected, loc, "path is a symbolic link in a write-protected location; a write could replace the link itself")
			}
		}
	}
	return real, nil
}

// Real returns the real path of an absolute path, following every symbolic
// link; the part that does not exist yet is taken as written (without
// ".."). It knows nothing of roots.
func Real(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not absolute", path)
	}
	return walk(path)
}

// CheckReal checks an already resolved, absolute path without touching
// the file system: it must lie in the root or an extra root and, for
// Write, in a writable one and not be protected. A caller that holds a
// directory open checks the path the kernel reports for it with this,
// so nothing can be swapped between check and use.
func (w *Workspace) CheckReal(real string, access Access) error {
	fail := func(code Code, reason string) error {
		return &BoundaryError{Code: code, Path: real, Resolved: real, Root: w.root, Reason: reason}
	}
	if !filepath.IsAbs(real) || filepath.Clean(real) != real {
		return fail(Invalid, "not an absolute, clean path")
	}
	root, writable := w.rootOf(real)
	switch {
	case root == "":
		return fail(Outside, "path is outside the workspace")
	case access == Write && !writable:
		return fail(Protected, reasonReadOnlyRoot)
	case access == Write && protectedIn(root, real):
		return fail(Protected, "path is write-protected")
	}
	return nil
}

// Holds reports whether the real path lies in the root or an extra root.
func (w *Workspace) Holds(real string) bool {
	root, _ := w.rootOf(real)
	return root != ""
}

// rootOf returns the root (the workspace's or an extra one) that holds
// real, and whether it may be written; "" if none does.
func (w *Workspace) rootOf(real string) (string, bool) {
	if within(w.root, real) {
		return w.root, true
	}
	for _, e := range w.extra {
		if within(e.path, real) {
			return e.path, e.writable
		}
	}
	return "", false
}

// SplitLast splits p at its last "/" as text, without cleaning: the
// directory keeps any ".." (which only resolution can take, from where a
// link leads) and is "." for a bare name. Trailing slashes stay with the
// name, so "dir/" gives ("." , "dir/").
func SplitLast(p string) (dir, name string) {
	trimmed := strings.TrimRight(p, "/")
	i := strings.LastIndexByte(trimmed, '/')
	switch {
	case trimmed == "":
		return "/", p
	case i < 0:
		return ".", p
	case i == 0:
		return "/", p[1:]
	}
	return trimmed[:i], p[i+1:]
}

// linkLocation returns where the last component of full sits (its parent
// resolved, the name kept), when that component is a symlink.
func linkLocation(full string) (string, bool) {
	dir, name := SplitLast(full)
	if winPaths { // full is clean
		dir = parentOf(full)
		if name = full[len(dir):]; strings.HasPrefix(name, `\`) {
			name = name[1:]
		}
	}
	if name == "." || name == ".." || name == "" || strings.HasSuffix(name, "/") {
		return "", false
	}
	parent, err := walk(dir)
	if err != nil {
		return "", false
	}
	loc := joinName(parent, name)
	fi, err := lstat(loc)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	return loc, true
}

// askName returns the ask-before-write name real is or lies below, or "".
func (w *Workspace) askName(root, real string) string {
	rel, _ := relTo(root, real)
	if rel == "" {
		return ""
	}
	parts := strings.Split(rel, "/")
	for _, n := range w.askNames {
		name := strings.TrimSuffix(n, "/")
		if !strings.Contains(name, "/") && !strings.HasSuffix(n, "/") {
			for _, p := range parts {
				if strings.EqualFold(p, name) {
					return name
				}
			}
			continue
		}
		want := strings.Split(name, "/")
		if len(parts) >= len(want) && slices.EqualFunc(parts[:len(want)], want, strings.EqualFold) {
			return name
		}
	}
	return ""
}

// maxLinkedWalk bounds the entries of protected places linkedTargets
// looks at.
const maxLinkedWalk = 50000

// linkedTo returns the link in a protected place (the git directory but
// its objects, .vtexec, agents' and editors' settings directories at the
// root) that leads to real or to a directory above it, or "".
func (w *Workspace) linkedTo(real string) string {
	var m map[string]string
	if w.linked == nil {
		m = w.linkedTargets()
	} else {
		w.linked.once.Do(func() { w.linked.m = w.linkedTargets() })
		m = w.linked.m
	}
	for target, link := range m {
		if within(target, real) {
			return link
		}
	}
	return ""
}

// linkedTargets walks the protected places at the root for links that
// lead inside the root, and returns their real targets with the link.
//
// Each request checks its writes against them, and a walk of the git
// directory costs a stream of checks a twentieth of its time. A walk
// that found no link is therefore kept, once asked for a second time,
// while a watch of the root and of every directory walked sees no entry
// made, removed or renamed: only such a change can put a link, or a
// protected place, where the walk would see it. A walk that found a
// link, or stopped at its bound, is not kept: where a link leads can
// change anywhere on the way to its target.
func (w *Workspace) linkedTargets() map[string]string {
	places := []string{".git", ".vtexec"}
	for _, n := range w.askNames {
		if !strings.Contains(strings.TrimSuffix(n, "/"), "/") {
			places = append(places, strings.TrimSuffix(n, "/"))
		}
	}
	key := w.root + "\x00" + strings.Join(places, "\x00")
	if m, ok := linkedKept.Get(key); ok {
		return m
	}
	var watch *dirwatch.Watch
	if linkedKept.Again(key) {
		if watch = dirwatch.NewEntries(); !watch.Add(w.root) {
			watch.Close()
			watch = nil
		}
	}
	out := map[string]string{}
	seen := 0
	for _, name := range places {
		place := filepath.Join(w.root, name)
		if fi, err := os.Lstat(place); err != nil || !fi.IsDir() {
			continue
		}
		filepath.WalkDir(place, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				watch.Close() // what it holds is not known
				return nil
			}
			if seen++; seen > maxLinkedWalk {
				watch.Close()
				return filepath.SkipAll
			}
			if d.IsDir() && name == ".git" && p == filepath.Join(place, "objects") {
				return filepath.SkipDir
			}
			if d.IsDir() {
				// Before WalkDir reads it: a link made after the read is seen.
				if !watch.Add(p) {
					watch.Close()
				}
				return nil
			}
			if d.Type()&os.ModeSymlink == 0 {
				return nil
			}
			watch.Close()
			if target, err := filepath.EvalSymlinks(p); err == nil && within(w.root, target) && target != w.root {
				out[target] = p
			}
			return nil
		})
	}
	if watch != nil && !watch.Changed() {
		linkedKept.Put(key, out, watch)
	} else {
		watch.Close()
	}
	return out
}

// linkedKept keeps walks of protected places that found no link, by
// root and places (see linkedTargets).
var linkedKept = dirwatch.Kept[string, map[string]string]{Max: 64}

// protected reports whether a real path inside the root may not be written:
// anything named .git at any depth (and everything below it), and vtexec's
// own directory .vtexec at the root.
func (w *Workspace) protected(real string) bool { return protectedIn(w.root, real) }

func protectedIn(root, real string) bool {
	rel, _ := relTo(root, real)
	if rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	if strings.EqualFold(parts[0], ".vtexec") {
		return true
	}
	for _, p := range parts {
		if strings.EqualFold(p, ".git") {
			return true
		}
	}
	return false
}

func within(root, real string) bool {
	_, ok := relTo(root, real)
	return ok
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(p, func(r rune) bool { return r < 0x80 && isSep(byte(r)) }) {
		out = append(out, c)
	}
	return out
}

type walkError struct {
	code   Code
	at     string
	reason string
	// unreadable: at could not be examined (permission denied).
	unreadable bool
}

func (e *walkError) Error() string { return e.reason }

// walk resolves an absolute path the way the kernel does, one component at
// a time, following symlinks. Once a component does not exist, the rest is
// joined lexically and may not contain "..". Paths through /proc (including
// /dev/fd and /dev/stdin, which link there) are refused: their meaning
// depends on which process opens them.
func walk(full string) (string, error) {
	start, comps := startOf(full)
	return walkFrom(start, comps)
}

// walkFull is walk for a path given to Resolve: one below the root is
// walked from the root, which New resolved once, so its own components
// are not read again on every call.
func (w *Workspace) walkFull(full string) (string, error) {
	if rest, ok := strings.CutPrefix(full, w.root+sep()); ok && !isStart(w.root) {
		return walkFrom(w.root, splitPath(rest))
	}
	return walk(full)
}

// walkFrom resolves the components pending from resolved, a real
// directory.
func walkFrom(resolved string, pending []string) (string, error) {
	hops := 0
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		switch name {
		case ".":
			continue
		case "..":
			resolved = parentOf(resolved)
			continue
		}
		next := joinName(resolved, name)
		if !winPaths && within("/proc", next) {
			return "", &walkError{code: Outside, at: next, reason: "paths through /proc (and /dev/fd, /dev/std*) are not allowed"}
		}
		fi, err := lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				for _, rest := range append([]string{name}, pending...) {
					if rest == ".." {
						return "", &walkError{code: Invalid, at: next, reason: "\"..\" after a directory that does not exist"}
					}
					if len(rest) > maxNameLen {
						return "", &walkError{code: Invalid, at: next, reason: fmt.Sprintf("path component longer than %d bytes", maxNameLen)}
					}
				}
				missing := next
				for _, rest := range pending {
					if rest != "." {
						missing = joinName(missing, rest)
					}
				}
				if len(missing) > maxPathLen {
					return "", &walkError{code: Invalid, at: next, reason: fmt.Sprintf("resolved path longer than %d bytes", maxPathLen)}
				}
				return missing, nil
			}
			return "", &walkError{code: Invalid, at: next, reason: err.Error(), unreadable: errors.Is(err, fs.ErrPermission)}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return "", &walkError{code: Invalid, at: next, reason: "too many levels of symbolic links"}
		}
		target, err := readlink(next)
		if err != nil {
			return "", &walkError{code: Invalid, at: next, reason: err.Error()}
		}
		from, comps, ok := linkTarget(resolved, target)
		if !ok {
			return "", &walkError{code: Invalid, at: next, reason: "a link whose target (" + target + ") is not a path vtexec can follow"}
		}
		resolved = from
		pending = append(comps, pending...)
	}
	return resolved, nil
}
