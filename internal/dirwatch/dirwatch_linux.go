//go:build linux

// Package dirwatch tells whether directories have changed, so that a
// cache can be kept without looking at each of them again.
package dirwatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Watch says whether any of a set of directories has changed since it
// began to watch them: an entry made, removed, renamed or its attributes
// changed in one, or one itself changed, moved or removed. It uses
// inotify, whose events are queued by the change itself, before the call
// that made it returns, so a check costs one read instead of an lstat
// per directory.
//
// All watches of the process share one inotify instance (a user has 128
// at most, which editors and build tools need too) and hold at most
// maxWatches directories between them.
type Watch struct {
	dirty   bool
	closed  bool
	entries bool // see NewEntries
	wds     []int32
	shared  int // owners besides the first (see Share)
}

// maxWatches bounds the directories watched at once by the process.
const maxWatches = 16384

const (
	entriesMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR
	mask = entriesMask | unix.IN_ATTRIB
)

// hub is the process's inotify instance and who watches what.
var hub struct {
	sync.Mutex
	fd   int // 0: not made yet; -1: cannot be had
	byWD map[int32]map[*Watch]interest
	// watched: a watch was added once (the instance then has marks to
	// free when it is closed).
	watched bool
	events  [64 * (unix.SizeofInotifyEvent + unix.NAME_MAX + 1)]byte
}

// New returns a watch of no directory yet, or nil where inotify cannot
// be had (the caller then compares identities, say).
// interest is what a watch minds in one directory: events of mask,
// for the names (nil: every name).
type interest struct {
	mask  uint32
	names []string
}

func New() *Watch {
	hub.Lock()
	defer hub.Unlock()
	if hub.fd == 0 {
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil || fd == 0 {
			hub.fd = -1
		} else {
			hub.fd = fd
			hub.byWD = map[int32]map[*Watch]interest{}
		}
	}
	if hub.fd < 0 {
		return nil
	}
	return &Watch{}
}

// NewEntries is New for a watch that sees entries made, removed or
// renamed in its directories, and the directories themselves moved or
// removed, but not an entry's attributes changed (a chmod, a write's
// mtime). Adding such a directory is cheap: watching attributes makes
// the kernel mark every entry it has cached for the directory, the
// names looked up there and not found included, which on a machine that
// has looked up many names in /usr/bin takes tens of milliseconds per
// directory.
func NewEntries() *Watch {
	w := New()
	if w != nil {
		w.entries = true
	}
	return w
}

// Add watches dir, not following a final symbolic link. Add a directory
// before reading it, so that a change made after the read is seen. It
// reports false if dir cannot be watched (gone, not a directory, or too
// many watched).
func (w *Watch) Add(dir string) bool { return w.add(dir, unix.IN_DONT_FOLLOW, nil, false) }

// AddFollow watches the directory dir leads to (a link to a directory,
// such as /bin on many systems, followed).
func (w *Watch) AddFollow(dir string) bool { return w.add(dir, 0, nil, false) }

// AddNames watches the entries called names in dir (a final link not
// followed): one made, removed or renamed there, or dir itself moved or
// removed; with contents, also a write to one or its attributes changed.
// Events for other names in dir do not concern the watch, so a busy
// directory (a home, a workspace) can hold a name watched.
func (w *Watch) AddNames(dir string, contents bool, names ...string) bool {
	if len(names) == 0 {
		return false
	}
	return w.add(dir, unix.IN_DONT_FOLLOW, names, contents)
}

// AddPaths watches, for every path (absolute), the name of each of its
// components in the directory that holds it, that directory followed
// where it is a link: what changes where a path leads (a file put in a
// component's place, a directory renamed away) shows, and nothing else
// in those directories does.
func (w *Watch) AddPaths(paths ...string) bool {
	names := map[string][]string{} // directory -> names in it
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return false
		}
		for p = filepath.Clean(p); p != "/"; p = filepath.Dir(p) {
			dir, name := filepath.Dir(p), filepath.Base(p)
			if !slices.Contains(names[dir], name) {
				names[dir] = append(names[dir], name)
			}
		}
	}
	for dir, ns := range names {
		if !w.add(dir, 0, ns, false) {
			return false
		}
	}
	return true
}

func (w *Watch) add(dir string, flags uint32, names []string, contents bool) bool {
	if w == nil {
		return false
	}
	hub.Lock()
	defer hub.Unlock()
	if w.closed || len(hub.byWD) >= maxWatches {
		return false
	}
	m := uint32(mask)
	if w.entries {
		m = entriesMask
	}
	if names != nil {
		m = entriesMask
		if contents {
			m |= unix.IN_MODIFY | unix.IN_ATTRIB
		}
	}
	if !perRequest.Load() && hub.watched {
		// Events queued before this interest are not its: read them
		// first, or one made before the add (another watch's directory
		// made or removed here) would count as a change since.
		drain()
	}
	// Added to what the directory's watch has: the instance is shared,
	// and each watch of the same directory keeps what it asked for.
	wd, err := unix.InotifyAddWatch(hub.fd, dir, m|flags|unix.IN_MASK_ADD)
	if err != nil {
		return false
	}
	hub.watched = true
	id := int32(wd)
	set := hub.byWD[id]
	if set == nil {
		set = map[*Watch]interest{}
		hub.byWD[id] = set
	}
	old, ok := set[w]
	if !ok {
		w.wds = append(w.wds, id)
		set[w] = interest{m, names}
		return true
	}
	old.mask |= m
	switch {
	case old.names == nil:
	case names == nil:
		old.names = nil // every name from now on
	default:
		old.names = append(old.names[:len(old.names):len(old.names)], names...)
	}
	set[w] = old
	return true
}

// Changed reports whether anything happened to the directories watched
// (or the watch is nil or closed, or events were lost). Once changed, it
// stays so.
func (w *Watch) Changed() bool {
	if w == nil {
		return true
	}
	hub.Lock()
	defer hub.Unlock()
	if !perRequest.Load() {
		drain()
	}
	return w.dirty || w.closed
}

// Drain reads the events queued so far, so that Seen answers for them:
// a caller that asks about many watches at one moment reads the queue
// once instead of once per watch.
func Drain() {
	if !perRequest.Load() {
		readQueue()
	}
}

func readQueue() {
	hub.Lock()
	defer hub.Unlock()
	if hub.fd > 0 {
		drain()
	}
}

// Instance returns the process's inotify instance as a new descriptor,
// or nil if it has none or has never watched anything. A process about
// to exit hands it to one that outlives it by a moment (see the caller):
// the last holder of an instance that had watches waits, as it closes
// it, for the kernel to free them (an SRCU grace period of fsnotify's,
// 15-20 ms here), and a process that exits holding it makes its caller
// wait for that too.
func Instance() *os.File {
	hub.Lock()
	defer hub.Unlock()
	if hub.fd <= 0 || !hub.watched {
		return nil
	}
	fd, err := unix.FcntlInt(uintptr(hub.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "inotify")
}

// perRequest: the queue is read when a request begins, not by Changed
// or Drain (see ReadPerRequest).
var perRequest atomic.Bool

// ReadPerRequest makes the queue be read only when a request begins
// (RequestBegins); Changed and Drain then answer as of that read. It is
// for a process that only checks and never runs anything (a stream of
// checks): each request is decided on the world as it was when it
// began, which is what a read per watch gives it too, and nothing the
// process does changes the world in between. A stream checks many
// lines a second and asks about several watches for each.
func ReadPerRequest(on bool) { perRequest.Store(on) }

// RequestBegins reads the queue if it is read per request.
func RequestBegins() {
	if perRequest.Load() {
		readQueue()
	}
}

// Seen reports whether the watch had changed when the queue was last
// read (by Drain or Changed), or is nil or closed.
func (w *Watch) Seen() bool {
	if w == nil {
		return true
	}
	hub.Lock()
	defer hub.Unlock()
	return w.dirty || w.closed
}

// drain reads every event queued and marks the watches it concerns.
func drain() {
	for {
		n, err := unix.Read(hub.fd, hub.events[:])
		if n <= 0 {
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				markAll() // cannot tell what changed
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(hub.events[off:]))
			evMask := binary.NativeEndian.Uint32(hub.events[off+4:])
			nameLen := int(binary.NativeEndian.Uint32(hub.events[off+12:]))
			name := hub.events[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
			off += unix.SizeofInotifyEvent + nameLen
			if evMask&unix.IN_Q_OVERFLOW != 0 {
				markAll()
				continue
			}
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i] // the name is padded with NULs
			}
			gone := evMask&unix.IN_IGNORED != 0
			for x, in := range hub.byWD[wd] {
				if gone || evMask&in.mask != 0 && (in.names == nil || len(name) == 0 || minds(in.names, name)) {
					x.dirty = true
				}
			}
			if evMask&unix.IN_IGNORED != 0 {
				delete(hub.byWD, wd) // the kernel dropped it: the directory is gone
			}
		}
	}
}

// minds reports whether name is one of names.
func minds(names []string, name []byte) bool {
	for _, n := range names {
		if n == string(name) {
			return true
		}
	}
	return false
}

func markAll() {
	for _, set := range hub.byWD {
		for x := range set {
			x.dirty = true
		}
	}
}

// Share returns w for one more owner, who closes it as any owner does:
// it ends when each owner has closed it. Kept values that depend on the
// same directories can share one watch instead of each adding them (a
// watch added costs the kernel a walk of the directory's entries).
func (w *Watch) Share() *Watch {
	if w == nil {
		return nil
	}
	hub.Lock()
	defer hub.Unlock()
	w.shared++
	return w
}

// Close ends the watch; it reports changed from then on. A nil watch
// may be closed.
func (w *Watch) Close() {
	if w == nil {
		return
	}
	hub.Lock()
	defer hub.Unlock()
	if w.closed {
		return
	}
	if w.shared > 0 {
		w.shared--
		return
	}
	w.closed = true
	for _, wd := range w.wds {
		set, ok := hub.byWD[wd]
		if !ok {
			continue
		}
		delete(set, w)
		if len(set) == 0 {
			delete(hub.byWD, wd)
			unix.InotifyRmWatch(hub.fd, uint32(wd))
		}
	}
	w.wds = nil
}
