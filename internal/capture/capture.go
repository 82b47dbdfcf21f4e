// Package capture keeps what a program writes in bounded memory.
package capture

import (
	"strconv"
	"sync"
	"unicode/utf8"
)

// Capture is an io.Writer that keeps the first and the last bytes written to
// it and counts all of them, so a command's output costs bounded memory
// however much it writes. It is safe for concurrent use. The zero value
// keeps nothing; use New.
type Capture struct {
	mu      sync.Mutex
	headMax int
	tailMax int
	head    []byte
	tail    []byte // ring buffer of tailMax bytes, allocated on first use
	tailPos int    // where the next tail byte goes
	tailLen int    // how many bytes of tail are valid
	total   int64
}

// New returns a Capture that keeps at most max bytes: the first max/2
// and the last max-max/2. A max below zero is treated as zero.
func New(max int) *Capture {
	if max < 0 {
		max = 0
	}
	return &Capture{headMax: max / 2, tailMax: max - max/2}
}

// Write records p. It never fails and always returns len(p), nil.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.writeTail(p)
	return n, nil
}

// writeTail appends p to the ring buffer, keeping its last tailMax bytes.
func (c *Capture) writeTail(p []byte) {
	if len(p) == 0 || c.tailMax == 0 {
		return
	}
	if c.tail == nil {
		c.tail = make([]byte, c.tailMax)
	}
	if len(p) >= c.tailMax {
		copy(c.tail, p[len(p)-c.tailMax:])
		c.tailPos, c.tailLen = 0, c.tailMax
		return
	}
	k := copy(c.tail[c.tailPos:], p)
	copy(c.tail, p[k:])
	c.tailPos = (c.tailPos + len(p)) % c.tailMax
	c.tailLen = min(c.tailLen+len(p), c.tailMax)
}

// String returns the bytes written, or, if more than max were written, the
// head, a line "[vtexec: N bytes omitted]" on its own, and the tail. When
// the output is UTF-8, head and tail end and begin at character
// boundaries: the bytes of a character they would split are omitted too.
func (c *Capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	head := c.head
	tail := make([]byte, 0, c.tailLen)
	if c.tailLen < c.tailMax {
		tail = append(tail, c.tail[:c.tailLen]...)
	} else {
		tail = append(append(tail, c.tail[c.tailPos:]...), c.tail[:c.tailPos]...)
	}
	omitted := c.total - int64(len(head)+len(tail))
	if omitted <= 0 {
		return string(append(append(make([]byte, 0, len(head)+len(tail)), head...), tail...))
	}
	head, tail = utf8Cut(head, tail)
	omitted = c.total - int64(len(head)+len(tail))
	out := make([]byte, 0, len(head)+len(tail)+64)
	out = append(out, head...)
	out = append(out, "\n[vtexec: "...)
	out = strconv.AppendInt(out, omitted, 10)
	out = append(out, " bytes omitted]\n"...)
	return string(append(out, tail...))
}

// utf8Cut drops a character split at the end of head or the start of
// tail, if the rest of each is UTF-8; bytes that are not are kept as
// they are.
func utf8Cut(head, tail []byte) ([]byte, []byte) {
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) && utf8.Valid(head[:i]) {
				head = head[:i]
			}
			break
		}
	}
	k := 0
	for k < len(tail) && k < utf8.UTFMax-1 && !utf8.RuneStart(tail[k]) {
		k++
	}
	if k > 0 && utf8.Valid(tail[k:]) {
		tail = tail[k:]
	}
	return head, tail
}

// Total returns the number of bytes written, kept or not.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Truncated reports whether some bytes written were not kept.
func (c *Capture) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(len(c.head)+c.tailLen)
}
