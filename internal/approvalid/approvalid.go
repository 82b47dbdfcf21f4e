// Package approvalid mints and verifies approval ids: a MAC, keyed by a
// secret in vtexec's state directory that no command can read (the
// kernel box keeps the state directory out of reach), over what a
// question binds (its session, cwd, commands, asks and how they are
// joined), with an expiry and a nonce spent on first use.
package approvalid

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// Lifetime is how long an approval id stays good.
const Lifetime = 10 * time.Minute

// ErrMismatch is an approval id that does not approve the question.
var ErrMismatch = errors.New("the approval id does not match this command (its commands and how they are joined), cwd and session, or has expired or been used")

// New returns an id for binding (the question's canonical bytes), good
// until now plus Lifetime, keyed by the key in stateDir (made if
// missing).
func New(stateDir string, binding []byte, now time.Time) (string, error) {
	k, err := key(stateDir)
	if err != nil {
		return "", err
	}
	var n [12]byte
	rand.Read(n[:])
	nonce := hex.EncodeToString(n[:])
	expiry := now.Add(Lifetime).Unix()
	return fmt.Sprintf("v1.%d.%s.%s", expiry, nonce, mac(k, binding, expiry, nonce)), nil
}

// Spend verifies that id was made for binding and has not expired, and
// spends it: an id works once, whatever the answer it carries (a session
// or always answer records its rule anyway).
func Spend(stateDir, id string, binding []byte, now time.Time) error {
	parts := strings.Split(id, ".")
	if len(parts) != 4 || parts[0] != "v1" {
		return ErrMismatch
	}
	expiry, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || now.Unix() > expiry {
		return ErrMismatch
	}
	k, err := key(stateDir)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(mac(k, binding, expiry, parts[2])), []byte(parts[3])) {
		return ErrMismatch
	}
	return spend(stateDir, parts[2], expiry, now)
}

func mac(key, binding []byte, expiry int64, nonce string) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "vtexec-approval-v1\x00%d\x00%s\x00", expiry, nonce)
	m.Write(binding)
	return hex.EncodeToString(m.Sum(nil))
}

// key is the secret in dir/approval.key, made if missing.
func key(dir string) ([]byte, error) {
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
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
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
	_, werr := tmp.Write(k)
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
	return k, nil
}

// spend records an id as used: an id works once, whatever the
// answer (a session or always answer records its rule anyway).
func spend(stateDir, nonce string, expiry int64, now time.Time) error {
	dir := filepath.Join(stateDir, "approvals-used")
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
			return ErrMismatch
		}
		return err
	}
	return f.Close()
}
