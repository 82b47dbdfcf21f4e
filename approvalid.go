package vtexec

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// Approval ids let a harness approve a command for its person: check
// --json hands out an id for the exact plan that asks (session, cwd,
// every command's argv and redirects, the rules session or always would
// record); the harness shows the command, and on a yes runs it with
// --approve ANSWER --approval-id ID. The id is a MAC keyed by a secret in
// vtexec's state directory, which no command can read (the kernel box
// keeps the state directory out of reach), so no command can mint one;
// it expires, and one answered "once" is spent. Only the harness supplies
// these flags; the agent supplies the command string, and vtexec can
// never be run from a command string.

// ApprovalIDLifetime is how long an approval id stays good.
const ApprovalIDLifetime = 10 * time.Minute

// approvalPayload is what an id is bound to.
type approvalPayload struct {
	Session  string    `json:"session"`
	Cwd      string    `json:"cwd"`
	Commands []Command `json:"commands"`
	Asks     []Ask     `json:"asks"`
	Flow     string    `json:"flow"`
}

func approvalKey() ([]byte, error) {
	dir, err := StateDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "approval.key")
	if key, _, err := fsutil.ReadRegular(path, 64, false); err == nil && len(key) == 32 {
		return key, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// A key file of another length is what a write that failed left (a
	// full disk): once it has stood for a while, it is replaced.
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() != 32 && time.Since(fi.ModTime()) > 10*time.Second {
		os.Remove(path)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// Written whole to a temporary file, then linked into place: the key
	// file appears complete or not at all, and a key another vtexec made
	// meanwhile wins.
	tmp, err := os.CreateTemp(dir, ".approval.key.tmp-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(key)
	if serr := tmp.Sync(); werr == nil {
		werr = serr
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, werr
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if key, _, err := fsutil.ReadRegular(path, 64, false); err == nil && len(key) == 32 {
			return key, nil // made meanwhile by another vtexec: use that one
		}
		return nil, err
	}
	return key, nil
}

func approvalMAC(key []byte, q Question, session string, expiry int64, nonce string) string {
	payload, _ := json.Marshal(approvalPayload{Session: session, Cwd: q.Cwd, Commands: q.Commands, Asks: q.Asks, Flow: q.flow})
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "vtexec-approval-v1\x00%d\x00%s\x00", expiry, nonce)
	m.Write(payload)
	return hex.EncodeToString(m.Sum(nil))
}

// Digest identifies the exact plan a person is asked about: its cwd,
// commands, asks and how the commands are joined, and the text shown.
// Two questions with the same digest approve the same run.
func (q Question) Digest() string {
	payload, _ := json.Marshal(struct {
		approvalPayload
		Text string `json:"text"`
	}{approvalPayload{Cwd: q.Cwd, Commands: q.Commands, Asks: q.Asks, Flow: q.flow}, q.Text()})
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:])
}

// newApprovalID returns an id for the question as asked in session.
func newApprovalID(q Question, session string, now time.Time) (string, error) {
	key, err := approvalKey()
	if err != nil {
		return "", err
	}
	var n [12]byte
	rand.Read(n[:])
	nonce := hex.EncodeToString(n[:])
	expiry := now.Add(ApprovalIDLifetime).Unix()
	return fmt.Sprintf("v1.%d.%s.%s", expiry, nonce, approvalMAC(key, q, session, expiry, nonce)), nil
}

// ErrApprovalID is an approval id that does not approve the question.
var ErrApprovalID = errors.New("the approval id does not match this command (its commands and how they are joined), cwd and session, or has expired or been used")

// IDApprover answers a question with Answer if ID was handed out for
// exactly that question in Session.
type IDApprover struct {
	ID      string
	Answer  Answer
	Session string
	now     func() time.Time
}

// Approve verifies the id against q and spends it for a "once" answer.
func (a IDApprover) Approve(_ context.Context, q Question) (Answer, error) {
	now := time.Now
	if a.now != nil {
		now = a.now
	}
	parts := strings.Split(a.ID, ".")
	if len(parts) != 4 || parts[0] != "v1" {
		return AnswerDeny, ErrApprovalID
	}
	expiry, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || now().Unix() > expiry {
		return AnswerDeny, ErrApprovalID
	}
	key, err := approvalKey()
	if err != nil {
		return AnswerDeny, err
	}
	want := approvalMAC(key, q, a.Session, expiry, parts[2])
	if !hmac.Equal([]byte(want), []byte(parts[3])) {
		return AnswerDeny, ErrApprovalID
	}
	if err := spendNonce(parts[2], expiry, now()); err != nil {
		return AnswerDeny, err
	}
	return a.Answer, nil
}

// spendNonce records an id as used: an id works once, whatever the
// answer (a session or always answer records its rule anyway).
func spendNonce(nonce string, expiry int64, now time.Time) error {
	dir, err := StateDir()
	if err != nil {
		return err
	}
	dir = filepath.Join(dir, "approvals-used")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// Forget ids that have expired anyway.
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 256 {
		for _, e := range entries {
			if exp, err := strconv.ParseInt(strings.SplitN(e.Name(), "-", 2)[0], 10, 64); err == nil && exp < now.Unix() {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d-%s", expiry, nonce)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if os.IsExist(err) {
			return ErrApprovalID
		}
		return err
	}
	return f.Close()
}
