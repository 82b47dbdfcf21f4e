package serve

import (
	"sync"
	"unicode/utf8"
)

// outBuffer keeps what a background command wrote since it was last
// read, at most max bytes: when more arrives, the oldest bytes are
// dropped and counted. It is safe for concurrent use.
type outBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64         // dropped since the last take
	total   int64         // every byte written
	changed chan struct{} // closed at the next write
}

func newOutBuffer(max int) *outBuffer {
	return &outBuffer{max: max, changed: make(chan struct{})}
}

// Write keeps p, dropping the oldest bytes beyond max (and the rest of
// a character cut at the front). It never fails.
func (o *outBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += int64(len(p))
	o.buf = append(o.buf, p...)
	if over := len(o.buf) - o.max; over > 0 {
		for over < len(o.buf) && !utf8.RuneStart(o.buf[over]) {
			over++
		}
		o.dropped += int64(over)
		o.buf = append(make([]byte, 0, o.max), o.buf[over:]...)
	}
	close(o.changed)
	o.changed = make(chan struct{})
	return len(p), nil
}

// take returns what was written since the last take and how many bytes
// were dropped in between. Unless final, a character whose bytes have
// not all arrived stays for the next take.
func (o *outBuffer) take(final bool) (data []byte, dropped int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(o.buf)
	if !final {
		n -= incompleteTail(o.buf)
	}
	data = append([]byte(nil), o.buf[:n]...)
	o.buf = append(o.buf[:0], o.buf[n:]...)
	dropped, o.dropped = o.dropped, 0
	return data, dropped
}

// pending is how many bytes a take would return now, and a channel
// closed at the next write.
func (o *outBuffer) pending() (int, <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf) - incompleteTail(o.buf), o.changed
}

// incompleteTail is the length of the start of a UTF-8 sequence at the
// end of b whose other bytes are still to come (0 if none).
func incompleteTail(b []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if !utf8.RuneStart(c) {
			continue
		}
		if c < utf8.RuneSelf {
			return 0
		}
		if need := seqLen(c); need > i {
			return i
		}
		return 0
	}
	return 0
}

// seqLen is the length of the UTF-8 sequence that lead byte c starts
// (1 for a byte that starts none).
func seqLen(c byte) int {
	switch {
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	}
	return 1
}
