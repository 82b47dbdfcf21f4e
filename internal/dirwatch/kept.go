package dirwatch

import "sync"

// Kept is a bounded map of values, each valid while the watch it was
// put with sees no change. Its zero value keeps up to 64; it is safe for
// concurrent use.
type Kept[K comparable, V any] struct {
	// Max bounds the values kept; past it the map starts afresh.
	Max int

	mu    sync.Mutex
	m     map[K]keptValue[V]
	asked map[K]bool
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

// Again reports whether k was asked for before, and notes that it is
// now. A watch is worth making only for a key asked for again: a
// process that asks once (vtexec check, a hook) would only pay for it,
// and adding a watch can wait tens of ms where another process's
// watches were just torn down.
func (c *Kept[K, V]) Again(k K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked[k] {
		return true
	}
	if c.asked == nil || len(c.asked) >= c.max()*4 {
		c.asked = map[K]bool{}
	}
	c.asked[k] = true
	return false
}

func (c *Kept[K, V]) max() int {
	if c.Max <= 0 {
		return 64
	}
	return c.Max
}

// Put keeps v for k while w sees no change; the Kept owns w from then
// on. A nil w keeps nothing.
func (c *Kept[K, V]) Put(k K, v V, w *Watch) {
	if w == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.max() {
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
