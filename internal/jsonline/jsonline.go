// Package jsonline holds what every face that reads JSON lines checks on
// the raw bytes before decoding them: Go's decoding replaces bytes that
// are not UTF-8, and escaped lone surrogates such as \ud800, with U+FFFD,
// so a command would be checked (and run) other than as it was sent.
package jsonline

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
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
			r, _ := strconv.ParseUint(string(data[i+2:i+6]), 16, 32)
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

// Fields returns the raw values of the keys named in a JSON object, in
// the order of keys (nil where a key is absent; the last of duplicates,
// as encoding/json keeps). It decides only lines it can read exactly as
// encoding/json would: ok is false when data is not one valid JSON
// object, when a key is escaped, when one of keys appears twice, or when
// a key is not one of keys but equals one of them without case
// (encoding/json would take it); the caller then decodes data with
// encoding/json. The values alias data.
func Fields(data []byte, keys ...string) (vals [][]byte, ok bool) {
	if !json.Valid(data) {
		return nil, false
	}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	vals = make([][]byte, len(keys))
	i = skipSpace(data, i+1)
	if data[i] == '}' {
		return vals, true
	}
	for {
		// A key: valid JSON, so a string; an escape in it is not read here.
		end := i + 1
		for data[end] != '"' {
			if data[end] == '\\' {
				return nil, false
			}
			end++
		}
		key := data[i+1 : end]
		i = skipSpace(data, end+1) + 1 // past ':'
		i = skipSpace(data, i)
		vend := skipValue(data, i)
		want := -1
		for k, name := range keys {
			if string(key) == name {
				want = k
				break
			}
			if bytes.EqualFold(key, []byte(name)) {
				return nil, false
			}
		}
		if want >= 0 {
			if vals[want] != nil {
				// Twice: encoding/json takes the last, and reports an
				// earlier one that is of another type.
				return nil, false
			}
			vals[want] = data[i:vend]
		}
		i = skipSpace(data, vend)
		if data[i] == '}' {
			return vals, true
		}
		i = skipSpace(data, i+1) // past ','
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns where the valid JSON value at data[i] ends.
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[i])) {
		i++
	}
	return i
}

// skipString returns where the valid JSON string at data[i] ends.
func skipString(data []byte, i int) int {
	for i++; data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	return i + 1
}
