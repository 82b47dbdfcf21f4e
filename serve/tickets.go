package serve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tickets are the questions a Server has put to clients that answer in
// rounds (the client calls the tool again with the answer and the round's
// request state). A ticket is the request state: a nonce, an expiry, and
// a MAC binding both to the connection and to the exact question. The
// server remembers each nonce it issued until it is redeemed or expires,
// so an answer counts once, on the connection it was asked on, for the
// question shown; a restarted server has a new key and no nonces, so
// nothing issued before counts.
type tickets struct {
	key      []byte
	lifetime time.Duration
	now      func() time.Time

	mu     sync.Mutex
	issued map[string]time.Time // nonce -> expiry, until redeemed
}

// maxTickets bounds the questions waiting for an answer, over all
// connections; beyond it the oldest are forgotten (their answers are then
// refused, and the client is asked again).
const maxTickets = 4096

// errTicket is a request state that does not approve this call.
var errTicket = errors.New("the answer is not for this question on this connection, was already used, or has expired; call again without input_responses to be asked anew")

func newTickets(lifetime time.Duration) *tickets {
	key := make([]byte, 32)
	rand.Read(key)
	return &tickets{key: key, lifetime: lifetime, now: time.Now, issued: map[string]time.Time{}}
}

// issue returns the request state for asking digest on conn.
func (t *tickets) issue(conn, digest string) string {
	var n [16]byte
	rand.Read(n[:])
	nonce := hex.EncodeToString(n[:])
	expiry := t.now().Add(t.lifetime)
	t.mu.Lock()
	t.forgetLocked()
	t.issued[nonce] = expiry
	t.mu.Unlock()
	exp := strconv.FormatInt(expiry.UnixNano(), 10)
	return "v1." + exp + "." + nonce + "." + t.mac(conn, digest, exp, nonce)
}

// redeem spends the ticket state if it was issued for digest on conn and
// has neither expired nor been spent.
func (t *tickets) redeem(conn, digest, state string) error {
	parts := strings.Split(state, ".")
	if len(parts) != 4 || parts[0] != "v1" {
		return errTicket
	}
	exp, nonce, sum := parts[1], parts[2], parts[3]
	if !hmac.Equal([]byte(t.mac(conn, digest, exp, nonce)), []byte(sum)) {
		return errTicket
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	expiry, ok := t.issued[nonce]
	if !ok {
		return errTicket
	}
	delete(t.issued, nonce) // spent, whatever happens next
	if t.now().After(expiry) {
		return errTicket
	}
	return nil
}

func (t *tickets) mac(conn, digest, exp, nonce string) string {
	m := hmac.New(sha256.New, t.key)
	fmt.Fprintf(m, "vtexec-ticket-v1\x00%s\x00%s\x00%s\x00%s", conn, exp, nonce, digest)
	return hex.EncodeToString(m.Sum(nil))
}

// forgetLocked drops expired tickets, and the oldest when too many wait.
func (t *tickets) forgetLocked() {
	now := t.now()
	for n, exp := range t.issued {
		if now.After(exp) {
			delete(t.issued, n)
		}
	}
	for len(t.issued) >= maxTickets {
		oldest, first := "", time.Time{}
		for n, exp := range t.issued {
			if oldest == "" || exp.Before(first) {
				oldest, first = n, exp
			}
		}
		delete(t.issued, oldest)
	}
}
