package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vtexec/vtexec/internal/jsonline"
	"github.com/vtexec/vtexec/internal/serveopts"
)

// A face that reads one JSON message a line must not die of a line: the
// MCP SDK's stdio transport ends the connection on the first one it
// cannot decode (a truncated or non-JSON line, a batch, an object id, a
// line over its cap), and with it every background job. GuardLines sits
// in front of it: every line that is not one well-formed JSON-RPC 2.0
// message gets a JSON-RPC error answer written by the guard, and only
// good lines reach the SDK. It also refuses what Go's JSON decoding would
// silently rewrite: bytes that are not UTF-8 and escaped lone surrogates
// (both become U+FFFD, so a command would run with other bytes than were
// sent).

// MaxLine bounds one message line; the rest of a longer line is
// discarded, not buffered, and answered with an error.
const MaxLine = 4 << 20

// maxDepth bounds how deeply a message's arrays and objects nest.
const maxDepth = 64

// JSON-RPC error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// LockedWriter serialises whole-message writes of the SDK and the guard,
// and sees each answer to a request in flight go out (see inFlight).
type LockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	flight *inFlight
}

// Write writes p in one call, holding the lock.
func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if l.flight != nil {
		l.flight.answered(p)
	}
	return n, err
}

// inFlight counts the requests passed to the SDK and not yet answered,
// so that the guard reads no further request while max are: a client
// that sends without reading queues in its own pipe, not in vtexec's
// memory and threads.
type inFlight struct {
	mu   sync.Mutex
	cond *sync.Cond
	ids  map[string]bool
	max  int
}

func newInFlight(max int) *inFlight {
	f := &inFlight{ids: map[string]bool{}, max: max}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// admit waits for room, then counts the request id.
func (f *inFlight) admit(id json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.ids) >= f.max {
		f.cond.Wait()
	}
	f.ids[flightKey(id)] = true
}

// answered uncounts the request a written line answers, if it is one.
func (f *inFlight) answered(line []byte) {
	id := responseID(line)
	if len(id) == 0 {
		return
	}
	key := flightKey(id)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids[key] {
		delete(f.ids, key)
		f.cond.Signal()
	}
}

// flightKey is an id as the SDK reads it, and so as its answer names
// it: a number as the whole number it decodes (1.0, 1e0 and 1 are all
// answered as 1), a string as the string it decodes ("\u0061" is "a"),
// not the bytes the client sent.
func flightKey(id json.RawMessage) string {
	if len(id) > 0 && id[0] == '"' {
		if !bytes.ContainsRune(id, '\\') {
			return "s" + string(id[1:len(id)-1])
		}
		var s string
		if json.Unmarshal(id, &s) == nil {
			return "s" + s
		}
	} else if f, err := strconv.ParseFloat(string(id), 64); err == nil {
		return "n" + strconv.FormatInt(int64(f), 10)
	}
	return "?" + string(id)
}

// responseID is the id of a response line (one with an id and no
// method), nil for anything else. Every answer goes through here, its
// whole result with it: one pass of jsonline reads the two members where
// it can read the line exactly, encoding/json the rest.
func responseID(line []byte) json.RawMessage {
	if v, ok := jsonline.Fields(line, "id", "method"); ok {
		if v[1] != nil {
			return nil
		}
		return v[0]
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil || len(m.Method) > 0 {
		return nil
	}
	return m.ID
}

// Close closes the underlying writer if it can be.
func (l *LockedWriter) Close() error {
	if c, ok := l.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// DefaultMaxCalls is how many requests of one connection are handled at
// once unless said otherwise; the next waits, unread, until one is
// answered.
const DefaultMaxCalls = serveopts.DefaultMaxCalls

// GuardLines returns a reader of the good lines of r, for the SDK, and
// the writer both the SDK and the guard answer on (w, locked). At most
// maxCalls requests (DefaultMaxCalls if 0) are passed on unanswered.
func GuardLines(r io.Reader, w io.Writer, maxCalls int) (io.ReadCloser, *LockedWriter) {
	if maxCalls <= 0 {
		maxCalls = DefaultMaxCalls
	}
	flight := newInFlight(maxCalls)
	out := &LockedWriter{w: w, flight: flight}
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br, MaxLine)
			if len(line) > 0 || tooLong {
				why, code, id := checkMessage(line, tooLong)
				if why != "" {
					writeRPCError(out, id, code, why)
				} else if msg := forSDK(line); len(msg) > 0 {
					if id != nil {
						flight.admit(id) // a request: wait for room
					}
					if _, werr := pw.Write(append(msg, '\n')); werr != nil {
						return
					}
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr, out
}

// forSDK is a good line as the SDK is given it: the message without the
// JSON whitespace around it. The SDK's reader ends the connection when
// the byte after a message is not a line's end, as a space or tab is.
func forSDK(line []byte) []byte {
	return bytes.Trim(line, jsonSpace)
}

// readLine reads one line without its end (\n or \r\n); a line longer
// than limit is read to its end and discarded, with tooLong set.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if tooLong {
			line = nil
		}
		return line, tooLong, err
	}
}

// checkMessage says what is wrong with one line as a JSON-RPC 2.0
// message ("" if nothing), the error code, and the id to answer with; for
// a good line, the id of a request (nil for a notification or a
// response).
func checkMessage(line []byte, tooLong bool) (why string, code int, id json.RawMessage) {
	// JSON's own whitespace only: a line of other spaces (a vertical tab,
	// U+0085) is no blank line to the SDK's decoder, which would end the
	// connection on it.
	trimmed := bytes.Trim(line, jsonSpace)
	switch {
	case tooLong:
		return fmt.Sprintf("bad_request: the line is longer than %d bytes; send one message a line, smaller", MaxLine), rpcInvalidRequest, nil
	case len(trimmed) == 0:
		return "", 0, nil
	case !utf8.Valid(trimmed):
		return "bad_request: the line is not valid UTF-8; vtexec runs exactly the bytes it is sent, so it refuses what it would have to replace", rpcParseError, nil
	}
	if id, ok := plainMessage(trimmed); ok {
		return "", 0, id
	}
	return readMessage(trimmed)
}

// readMessage is checkMessage for a line that is not empty, valid UTF-8
// and not a plainMessage, member by member.
func readMessage(trimmed []byte) (why string, code int, id json.RawMessage) {
	switch {
	case !json.Valid(trimmed):
		return "parse error: the line is not JSON; send one JSON-RPC 2.0 message a line", rpcParseError, nil
	case jsonline.LoneSurrogate(trimmed):
		return "bad_request: the line has an escaped lone surrogate (\\ud800-\\udfff), which decoding would replace with U+FFFD", rpcParseError, nil
	case depth(trimmed) > maxDepth:
		return fmt.Sprintf("invalid request: the message nests deeper than %d levels", maxDepth), rpcInvalidRequest, nil
	case trimmed[0] == '[':
		return "invalid request: batches are not supported; send one message a line", rpcInvalidRequest, nil
	case trimmed[0] != '{':
		return "invalid request: a message is a JSON object", rpcInvalidRequest, nil
	}
	// The members by their exact names: Go's decoding would also take
	// "JSONRPC" or "Method" for them, which JSON-RPC does not.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return "invalid request: " + err.Error(), rpcInvalidRequest, nil
	}
	for k := range raw {
		for _, name := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			if k != name && strings.EqualFold(k, name) {
				return fmt.Sprintf("invalid request: the member %q is not %q", k, name), rpcInvalidRequest, nil
			}
		}
	}
	var m struct {
		JSONRPC string
		ID      json.RawMessage
		Method  json.RawMessage
		Result  json.RawMessage
		Error   json.RawMessage
	}
	json.Unmarshal(raw["jsonrpc"], &m.JSONRPC)
	m.ID, m.Method, m.Result, m.Error = raw["id"], raw["method"], raw["result"], raw["error"]
	if len(m.ID) > 0 && m.ID[0] != '"' && (m.ID[0] < '0' || m.ID[0] > '9') && m.ID[0] != '-' && string(m.ID) != "null" {
		return "invalid request: an id is a string or a number", rpcInvalidRequest, nil
	}
	if string(m.ID) == "null" {
		m.ID = nil
	}
	// As the SDK decodes a message: a line it cannot decode ends its
	// connection, so it is answered here.
	var wire sdkWire
	if err := json.Unmarshal(trimmed, &wire); err != nil {
		return "invalid request: " + err.Error(), rpcInvalidRequest, nil
	}
	if f, ok := wire.ID.(float64); ok && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
		// The SDK answers with the id as an integer: another id.
		return "invalid request: a numeric id is a whole number between -2^53 and 2^53", rpcInvalidRequest, nil
	}
	switch {
	case m.JSONRPC != "2.0":
		return `invalid request: "jsonrpc" must be "2.0"`, rpcInvalidRequest, m.ID
	case len(m.Method) > 0:
		var method string
		if json.Unmarshal(m.Method, &method) != nil || method == "" {
			return `invalid request: "method" must be a non-empty string`, rpcInvalidRequest, m.ID
		}
		return "", 0, m.ID // a request (id) or a notification (none)
	case len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0):
		return "", 0, nil // a response to one of the server's requests
	default:
		return `invalid request: neither a request ("method") nor a response ("id" with "result" or "error")`, rpcInvalidRequest, m.ID
	}
}

// plainMessage decides, in one pass over the line, the messages clients
// send: a request or notification whose "method" is a plain non-empty
// string, or a response with a "result", each with "jsonrpc" "2.0", an
// id that is a string or a whole number within ±2^53 (or none), and no
// "error". It returns the id to answer with, as checkMessage would, and
// ok; for any other line, ok is false and checkMessage reads it member
// by member. jsonline.Fields' line is one valid JSON object nesting at
// most 32 levels whose six members are each there at most once, by
// their exact names: what checkMessage's first checks establish.
func plainMessage(line []byte) (id json.RawMessage, ok bool) {
	v, ok := jsonline.Fields(line, "jsonrpc", "id", "method", "result", "error", "params")
	if !ok || v[4] != nil || jsonline.LoneSurrogate(line) {
		return nil, false
	}
	if version, ok := jsonline.String(v[0]); !ok || version != "2.0" {
		return nil, false
	}
	if id = v[1]; id != nil {
		switch c := id[0]; {
		case c == '"':
		case c == '-' || (c >= '0' && c <= '9'):
			f, err := strconv.ParseFloat(string(id), 64)
			if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	switch {
	case v[2] != nil:
		method, ok := jsonline.String(v[2])
		return id, ok && method != ""
	case id != nil && v[3] != nil:
		return nil, true // a response to one of the server's requests
	}
	return nil, false
}

// sdkWire is the form the SDK decodes every line into (jsonrpc2's
// wireDecode): a line that does not decode into it ends the SDK's
// connection.
type sdkWire struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error,omitempty"`
}

// writeRPCError answers a bad line.
func writeRPCError(w io.Writer, id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	w.Write(append(b, '\n'))
}

// depth is how deeply arrays and objects nest in valid JSON data.
func depth(data []byte) int {
	d, most, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// jsonSpace is the whitespace JSON allows between tokens.
const jsonSpace = " \t\r\n"
