package cwdtrack

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// prefix starts every marker line.
const prefix = "[vtexec-cwd] "

// NewToken returns a fresh random session token (a UUID v4).
func NewToken() string { return uuid.NewString() }

// Mark is what a marker line carries.
type Mark struct {
	Cwd      string
	ExitCode int
}

// Marker returns the marker line for m, newline included, authenticated
// with token.
func Marker(token string, m Mark) string {
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		panic("cwdtrack: no randomness: " + err.Error())
	}
	nonce := hex.EncodeToString(raw[:])
	return fmt.Sprintf("%scwd=%s exit=%d nonce=%s mac=%s\n", prefix, strconv.Quote(m.Cwd), m.ExitCode, nonce, mac(token, nonce, m))
}

func mac(token, nonce string, m Mark) string {
	h := hmac.New(sha256.New, []byte(token))
	fmt.Fprintf(h, "%s\x00%d\x00%s", nonce, m.ExitCode, m.Cwd)
	return hex.EncodeToString(h.Sum(nil))
}

// Parse looks for a valid marker on the last line of output. It returns
// the output without that line and the mark. A last line that is not a
// marker, or whose MAC does not verify with token, is ordinary output:
// ok is false and body is output unchanged.
func Parse(token, output string) (body string, m Mark, ok bool) {
	trimmed := strings.TrimSuffix(output, "\n")
	start := strings.LastIndexByte(trimmed, '\n') + 1
	last := trimmed[start:]
	rest, found := strings.CutPrefix(last, prefix)
	if !found {
		return output, Mark{}, false
	}
	m, nonce, sum, err := fields(rest)
	if err != nil || !hmac.Equal([]byte(sum), []byte(mac(token, nonce, m))) {
		return output, Mark{}, false
	}
	return output[:start], m, true
}

// fields reads `cwd="…" exit=N nonce=H mac=H`.
func fields(s string) (m Mark, nonce, sum string, err error) {
	s, ok := strings.CutPrefix(s, "cwd=")
	if !ok {
		return m, "", "", fmt.Errorf("no cwd")
	}
	quoted, err := strconv.QuotedPrefix(s)
	if err != nil {
		return m, "", "", err
	}
	if m.Cwd, err = strconv.Unquote(quoted); err != nil {
		return m, "", "", err
	}
	var exit int
	n, err := fmt.Sscanf(s[len(quoted):], " exit=%d nonce=%s mac=%s", &exit, &nonce, &sum)
	if err != nil || n != 3 {
		return m, "", "", fmt.Errorf("malformed marker")
	}
	m.ExitCode = exit
	return m, nonce, sum, nil
}
