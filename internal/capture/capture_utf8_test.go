package capture

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// Head and tail are cut at character boundaries when the output is
// UTF-8; the characters cut are counted as omitted.
func TestCaptureCutsAtCharacterBoundaries(t *testing.T) {
	for _, max := range []int{7, 8, 9, 10, 11, 12, 13} {
		for _, text := range []string{strings.Repeat("é", 50), strings.Repeat("日本", 30), strings.Repeat("a😀", 20)} {
			c := New(max)
			for i := 0; i < len(text); i += 3 { // written in pieces that split characters
				c.Write([]byte(text[i:min(i+3, len(text))]))
			}
			out := c.String()
			assert.True(t, utf8.ValidString(out), "max %d: %q", max, out)
			head, rest, ok := strings.Cut(out, "\n[vtexec: ")
			if !assert.True(t, ok, "truncated") {
				continue
			}
			n, tail, _ := strings.Cut(rest, " bytes omitted]\n")
			omitted, err := strconv.Atoi(n)
			assert.NoError(t, err)
			assert.Equal(t, len(text), len(head)+omitted+len(tail), "max %d: every byte is kept or counted", max)
			assert.True(t, strings.HasPrefix(text, head) && strings.HasSuffix(text, tail))
		}
	}
}

// Bytes that are not UTF-8 are kept exactly.
func TestCaptureKeepsBinaryExact(t *testing.T) {
	data := []byte{0xff, 0xfe, 0x80, 0x81, 0xc3, 0x00, 0x80, 0x80, 0xff, 0xc3, 0xa9, 0x80, 0x80, 0x80, 0xfe, 0xff}
	c := New(8)
	c.Write(data)
	out := c.String()
	assert.True(t, strings.HasPrefix(out, string(data[:4])))
	assert.True(t, strings.HasSuffix(out, string(data[len(data)-4:])))
	assert.Contains(t, out, "[vtexec: 8 bytes omitted]")
}
