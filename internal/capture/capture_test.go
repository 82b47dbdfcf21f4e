package capture

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCaptureUnderLimit(t *testing.T) {
	c := New(16)
	n, err := c.Write([]byte("hello "))
	assert.NoError(t, err)
	assert.Equal(t, 6, n)
	c.Write([]byte("world"))
	assert.Equal(t, "hello world", c.String())
	assert.Equal(t, int64(11), c.Total())
	assert.False(t, c.Truncated())
}

func TestCaptureExactlyAtLimit(t *testing.T) {
	c := New(10)
	c.Write([]byte("0123456789"))
	assert.Equal(t, "0123456789", c.String())
	assert.False(t, c.Truncated())
	c.Write([]byte("a"))
	assert.True(t, c.Truncated())
	assert.Equal(t, "01234\n[vtexec: 1 bytes omitted]\n6789a", c.String())
}

func TestCaptureOverLimit(t *testing.T) {
	c := New(8)
	n, err := c.Write([]byte("abcdefghijklmnopqrstuvwxyz"))
	assert.NoError(t, err)
	assert.Equal(t, 26, n)
	assert.True(t, c.Truncated())
	assert.Equal(t, int64(26), c.Total())
	assert.Equal(t, "abcd\n[vtexec: 18 bytes omitted]\nwxyz", c.String())
}

func TestCaptureManySmallWrites(t *testing.T) {
	c := New(100)
	var all bytes.Buffer
	for i := range 10000 {
		b := []byte{byte('a' + i%26), byte('0' + i%10), '\n'}
		c.Write(b)
		all.Write(b)
	}
	want := all.String()
	assert.Equal(t, int64(len(want)), c.Total())
	assert.True(t, c.Truncated())
	omitted := len(want) - 100
	assert.Equal(t, want[:50]+"\n[vtexec: "+strconv.Itoa(omitted)+" bytes omitted]\n"+want[len(want)-50:], c.String())
}

func TestCaptureWritesStraddlingTheHead(t *testing.T) {
	c := New(6)
	for _, s := range []string{"ab", "cd", "ef", "gh", "ij"} {
		c.Write([]byte(s))
	}
	assert.Equal(t, "abc\n[vtexec: 4 bytes omitted]\nhij", c.String())
}

func TestCaptureOddMax(t *testing.T) {
	c := New(5)
	c.Write([]byte("0123456789"))
	assert.Equal(t, "01\n[vtexec: 5 bytes omitted]\n789", c.String())
}

func TestCaptureZero(t *testing.T) {
	c := New(0)
	c.Write([]byte("abc"))
	assert.Equal(t, "\n[vtexec: 3 bytes omitted]\n", c.String())
	assert.True(t, c.Truncated())
	assert.Equal(t, "", New(-1).String())
}

func TestCaptureMemoryIsBounded(t *testing.T) {
	c := New(1024)
	chunk := []byte(strings.Repeat("x", 4096))
	for range 1000 {
		c.Write(chunk)
	}
	assert.LessOrEqual(t, cap(c.head)+cap(c.tail), 2*1024)
	assert.Equal(t, int64(4096*1000), c.Total())
}

func TestCaptureConcurrentWrites(t *testing.T) {
	c := New(64)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				c.Write([]byte("0123456789"))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(80000), c.Total())
	assert.Len(t, c.String(), 64+len("\n[vtexec: 79936 bytes omitted]\n"))
}
