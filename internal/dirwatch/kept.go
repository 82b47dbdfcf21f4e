package dirwatch

import "sync"

// Kept is a bounded map of values, each valid while the watch it was
// put with sees no change. Its zero value keeps up to 64; it is safe for
// concurrent use.
type Kept[K comparable, V any] struct {
	// Max bounds the values kept; past it the map starts afresh.
	Max int

	mu sync.Mutex
	m  map[K]keptValue[V]
}

type keptValue[V any] struct {
	v V
	w *Watch
}

// Get returns the value kept for k if its watch has seen no change.
func (c *Kept[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if ok && e.w.Changed() {
		e.w.Close()
		delete(c.m, k)
		ok = false
	}
	return e.v, ok
}

// Put keeps v for k while w sees no change; the Kept owns w from then
// on. A nil w keeps nothing.
func (c *Kept[K, V]) Put(k K, v V, w *Watch) {
	if w == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	max := c.Max
	if max <= 0 {
		max = 64
	}
	if c.m == nil || len(c.m) >= max {
		for _, e := range c.m {
			e.w.Close()
		}
		c.m = map[K]keptValue[V]{}
	}
	if old, ok := c.m[k]; ok {
		old.w.Close()
	}
	c.m[k] = keptValue[V]{v: v, w: w}
}
