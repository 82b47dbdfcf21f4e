// Package early makes a result in the background that a caller will
// want later, and lets the caller make it itself when nothing has begun
// it yet. On a machine whose idle CPUs wake slowly, a new goroutine may
// first run a millisecond after it was started: waiting for it then is
// slower than doing its work.
package early

import "sync"

// Work is a result being made ahead.
type Work[T any] struct {
	once    sync.Once
	produce func() T
	v       T
	skipped bool
}

// Start begins produce on a goroutine of its own.
func Start[T any](produce func() T) *Work[T] {
	w := &Work[T]{produce: produce}
	go w.Get()
	return w
}

// Get is the result: made by the background if it began, waited for
// if it has not ended, made now by the caller if nothing began it.
func (w *Work[T]) Get() T {
	w.once.Do(func() { w.v = w.produce() })
	return w.v
}

// Begun is the result and true if the background began making it
// (waiting for it to end), or the zero T and false: then it never will
// be made.
func (w *Work[T]) Begun() (T, bool) {
	w.once.Do(func() { w.skipped = true })
	return w.v, !w.skipped
}
