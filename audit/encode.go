package audit

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// appendRecord appends r as one JSON object, byte for byte what
// encoding/json's Encoder with HTML escaping off writes for it (without
// the newline): written out by hand because building json's encoder for
// the type costs a fresh vtexec process ~90 µs, more than the rest of
// the log's write. TestEncodeIsEncodingJSONs holds it to json's bytes.
func appendRecord(b []byte, r Record) []byte {
	b = append(b, `{"time":`...)
	b = append(b, '"')
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = appendField(b, "kind", r.Kind, false)
	b = appendField(b, "session", r.Session, true)
	b = appendField(b, "cwd", r.Cwd, true)
	b = appendField(b, "command", r.Command, true)
	if len(r.Argv) > 0 {
		b = append(b, `,"argv":[`...)
		for i, argv := range r.Argv {
			if i > 0 {
				b = append(b, ',')
			}
			if argv == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, '[')
			for j, a := range argv {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendString(b, a)
			}
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	b = appendField(b, "decision", r.Decision, false)
	b = appendField(b, "code", r.Code, true)
	b = appendField(b, "reason", r.Reason, true)
	b = appendField(b, "hint", r.Hint, true)
	b = appendField(b, "rule", r.Rule, true)
	b = appendField(b, "rule_file", r.RuleFile, true)
	b = appendField(b, "approval", r.Approval, true)
	if r.ExitCode != nil {
		b = strconv.AppendInt(append(b, `,"exit_code":`...), int64(*r.ExitCode), 10)
	}
	if r.DurationMs != 0 {
		b = strconv.AppendInt(append(b, `,"duration_ms":`...), r.DurationMs, 10)
	}
	if r.BytesOut != 0 {
		b = strconv.AppendInt(append(b, `,"bytes_out":`...), r.BytesOut, 10)
	}
	if r.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	if r.TimedOut {
		b = append(b, `,"timed_out":true`...)
	}
	return append(b, '}')
}

func appendField(b []byte, name, value string, omitEmpty bool) []byte {
	if omitEmpty && value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string as encoding/json does with
// HTML escaping off: quotes and backslashes escaped, every control
// character escaped (\b \f \n \r \t, else \u00XX), invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
