// Package jsonline holds what every face that reads JSON lines checks on
// the raw bytes before decoding them: Go's decoding replaces bytes that
// are not UTF-8, and escaped lone surrogates such as \ud800, with U+FFFD,
// so a command would be checked (and run) other than as it was sent.
package jsonline

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrNotExact says why a line cannot be decoded as sent.
var ErrNotExact = errors.New("the line is not valid UTF-8, or escapes a lone surrogate (\\ud800-\\udfff): decoding would replace them with U+FFFD, and vtexec checks exactly the bytes it is sent")

// Exact reports ErrNotExact for data that decoding would alter.
func Exact(data []byte) error {
	if !utf8.Valid(data) || LoneSurrogate(data) {
		return ErrNotExact
	}
	return nil
}

// LoneSurrogate reports whether valid JSON data escapes a UTF-16
// surrogate that is not half of a pair (\ud83d\ude00 is one character;
// \ud800 alone is none).
func LoneSurrogate(data []byte) bool {
	inString := false
	pendingHigh := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			if pendingHigh {
				return true
			}
			inString = false
		case '\\':
			if i+1 >= len(data) {
				return false
			}
			if data[i+1] != 'u' || i+5 >= len(data) {
				if pendingHigh {
					return true
				}
				i++
				continue
			}
			var r rune
			fmt.Sscanf(string(data[i+2:i+6]), "%04x", &r)
			i += 5
			switch {
			case r >= 0xd800 && r <= 0xdbff:
				if pendingHigh {
					return true
				}
				pendingHigh = true
			case r >= 0xdc00 && r <= 0xdfff:
				if !pendingHigh {
					return true
				}
				pendingHigh = false
			default:
				if pendingHigh {
					return true
				}
			}
		default:
			if pendingHigh {
				return true
			}
		}
	}
	return false
}
