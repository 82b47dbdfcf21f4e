//go:build linux

// Package dirwatch tells whether directories have changed, so that a
// cache can be kept without looking at each of them again.
package dirwatch

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// Watch says whether any of a set of directories has changed since it
// began to watch them: an entry made, removed or renamed in one, or one
// itself changed, moved or removed. It uses inotify, whose events are
// queued by the change itself, before the call that made it returns, so
// a check costs one read instead of an lstat per directory.
type Watch struct {
	mu    sync.Mutex
	fd    int // -1 once closed
	dirty bool
}

const mask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// New returns a watch of no directory yet, or nil where inotify cannot
// be had (the caller then compares identities, say).
func New() *Watch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &Watch{fd: fd}
}

// Add watches dir, not following a final symbolic link. Add a directory
// before reading it, so that a change made after the read is seen. It
// reports false if dir cannot be watched (gone, or not a directory).
func (w *Watch) Add(dir string) bool { return w.add(dir, unix.IN_DONT_FOLLOW) }

// AddFollow watches the directory dir leads to (a link to a directory,
// such as /bin on many systems, followed).
func (w *Watch) AddFollow(dir string) bool { return w.add(dir, 0) }

func (w *Watch) add(dir string, flags uint32) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return false
	}
	_, err := unix.InotifyAddWatch(w.fd, dir, mask|flags)
	return err == nil
}

// Changed reports whether anything happened to the directories watched
// (or the watch is nil or closed, or its queue overflowed). Once
// changed, it stays so.
func (w *Watch) Changed() bool {
	if w == nil {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirty || w.fd < 0 {
		return true
	}
	var buf [unix.SizeofInotifyEvent + unix.PathMax + 1]byte
	n, err := unix.Read(w.fd, buf[:])
	if n > 0 || !errors.Is(err, unix.EAGAIN) {
		w.dirty = true
	}
	return w.dirty
}

// Close ends the watch; it reports changed from then on. A nil watch
// may be closed.
func (w *Watch) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}
