// Package jsonline holds what every face that reads JSON lines checks on
// the raw bytes before decoding them: Go's decoding replaces bytes that
// are not UTF-8, and escaped lone surrogates such as \ud800, with U+FFFD,
// so a command would be checked (and run) other than as it was sent.
package jsonline

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf16"
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
	if !bytes.Contains(data, []byte(`\u`)) {
		return false // no escape of a code unit at all
	}
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
// object, when a key is escaped, when one of keys appears twice, when a
// key is not one of keys but equals one of them without case (encoding/json
// would take it), or when values nest deeper than maxDepth; the caller
// then decodes data with encoding/json. The values alias data.
//
// It validates as it reads, in one pass: encoding/json's Valid steps a
// state machine through an indirect call per byte, a twentieth of a
// stream of checks.
func Fields(data []byte, keys ...string) (vals [][]byte, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	vals = make([][]byte, len(keys))
	end, ok := scanObject(data, i, 0, func(key, value []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 {
			return false // an escaped key is not read here
		}
		want := -1
		for k, name := range keys {
			if string(key) == name {
				want = k
				break
			}
			if bytes.EqualFold(key, []byte(name)) {
				return false
			}
		}
		if want >= 0 {
			if vals[want] != nil {
				// Twice: encoding/json takes the last, and reports an
				// earlier one that is of another type.
				return false
			}
			vals[want] = value
		}
		return true
	})
	if !ok || skipSpace(data, end) != len(data) {
		return nil, false
	}
	return vals, true
}

// maxDepth bounds the nesting Fields reads; deeper lines go to
// encoding/json.
const maxDepth = 32

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns where the JSON value at data[i] ends, and false if
// it is not one valid value (as encoding/json's scanner reads it: bytes
// that are not UTF-8 are its decoder's business) or nests deeper than
// maxDepth.
func scanValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '"':
		return scanString(data, i)
	case c == '{':
		return scanObject(data, i, depth, nil)
	case c == '[':
		return scanArray(data, i, depth)
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(data, i)
	}
	if lit := literal(data[i]); lit != "" && bytes.HasPrefix(data[i:], []byte(lit)) {
		return i + len(lit), true
	}
	return i, false
}

// scanObject returns where the JSON object at data[i] ('{') ends, and
// whether it is one valid object (see scanValue) that member, when
// given, accepted: it is called with each member's key as written,
// without its quotes, and value.
func scanObject(data []byte, i, depth int, member func(key, value []byte) bool) (int, bool) {
	return scanMembers(data, i, depth, '}', func(i int) (int, bool) {
		if i >= len(data) || data[i] != '"' {
			return i, false
		}
		keyEnd, ok := scanString(data, i)
		if !ok {
			return keyEnd, false
		}
		key := data[i+1 : keyEnd-1]
		if i = skipSpace(data, keyEnd); i >= len(data) || data[i] != ':' {
			return i, false
		}
		start := skipSpace(data, i+1)
		end, ok := scanValue(data, start, depth+1)
		if ok && member != nil {
			ok = member(key, data[start:end])
		}
		return end, ok
	})
}

// scanArray returns where the JSON array at data[i] ('[') ends, and
// whether it is one valid array (see scanValue).
func scanArray(data []byte, i, depth int) (int, bool) {
	return scanMembers(data, i, depth, ']', func(i int) (int, bool) { return scanValue(data, i, depth+1) })
}

// scanMembers reads the members of the object or array opened at
// data[i], each read by one, separated by commas, up to closing.
func scanMembers(data []byte, i, depth int, closing byte, one func(int) (int, bool)) (int, bool) {
	if depth >= maxDepth {
		return i, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == closing {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = one(i); !ok {
			return i, false
		}
		i = skipSpace(data, i)
		switch {
		case i < len(data) && data[i] == closing:
			return i + 1, true
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		default:
			return i, false
		}
	}
}

// literal is the JSON literal a value starting with c can be, if any.
func literal(c byte) string {
	switch c {
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	}
	return ""
}

// scanString returns where the JSON string at data[i] (its opening
// quote) ends, and whether it is one: no control character, only the
// escapes JSON has.
func scanString(data []byte, i int) (int, bool) {
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i++; i >= len(data) {
				return i, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) {
					return i, false
				}
				for _, h := range data[i+1 : i+5] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// scanNumber returns where the JSON number at data[i] ends, and whether
// it is one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// String is the value of raw, one valid JSON string as Fields returns
// it, decoded as encoding/json would. ok is false for what it leaves to
// encoding/json: bytes that are not UTF-8, and escaped surrogates that
// are not a pair (which decoding replaces).
func String(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !utf8.Valid(body) {
		return "", false
	}
	esc := bytes.IndexByte(body, '\\')
	if esc < 0 {
		return string(body), true
	}
	out := make([]byte, 0, len(body))
	out = append(out, body[:esc]...)
	for i := esc; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(body, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					r2, ok = hex4(body, i+3)
				}
				if !ok {
					return "", false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return string(out), true
}

// hex4 is the rune of the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(v), err == nil
}
