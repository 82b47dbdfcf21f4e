package execpolicy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// AppendRule adds r to the policy file at path, unless an equal rule is
// there already; it reports whether it added. The file keeps what it had,
// comments and order included: the rule is appended as text. The write is
// atomic (temporary file, fsync, rename) and serialised by a lock file, so
// concurrent approvals all land. A file that does not parse is left alone
// and reported.
func AppendRule(path string, r PolicyRule, note string) (added bool, err error) {
	added, _, err = appendRule(path, r, note, nil)
	return added, err
}

// AppendTrustedRule appends r like AppendRule and vouches for the result,
// but only if the file was vouched for (or empty) before: a rule a person
// approves must not make trusted what someone else wrote into the file.
// trusted reports whether the file is trusted afterwards.
func (t TrustStore) AppendTrustedRule(path string, r PolicyRule, note string) (added, trusted bool, err error) {
	return appendRule(path, r, note, &t)
}

func appendRule(path string, r PolicyRule, note string, ts *TrustStore) (added, trusted bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, false, err
	}
	unlock, err := fsutil.Lock(path + ".lock")
	if err != nil {
		return false, false, err
	}
	defer unlock()

	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, false, err
	}
	if ts != nil {
		if trusted, err = ts.trustedContent(path, old); err != nil {
			return false, false, err
		}
	}
	added, err = writeRule(path, old, r, note)
	if err != nil || !trusted {
		return added, trusted, err
	}
	return added, true, ts.Trust(path)
}

// writeRule appends r to old and writes path, unless r is already there.
func writeRule(path string, old []byte, r PolicyRule, note string) (bool, error) {
	existing := &Policy{}
	if err := existing.add(Layer{Path: path, Trusted: true}, old); err != nil {
		return false, err
	}
	for _, e := range existing.Rules {
		if sameRule(e, r) {
			return false, nil
		}
	}
	r.Match, r.NotMatch, r.File, r.Line = nil, nil, "", 0
	block, err := toml.Marshal(policyFile{Rule: []PolicyRule{r}})
	if err != nil {
		return false, err
	}
	if r.Argv != nil && len(r.Argv) == 0 {
		// "no arguments" must be written out: without the key the rule
		// would allow the program with any arguments.
		block = append(bytes.TrimRight(ruleBlock(block), "\n"), []byte("\nargv = []\n")...)
	}
	var buf bytes.Buffer
	buf.Write(old)
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		buf.WriteByte('\n')
	}
	if len(old) > 0 {
		buf.WriteByte('\n')
	}
	if note != "" {
		fmt.Fprintf(&buf, "# %s\n", note)
	}
	buf.Write(bytes.TrimLeft(ruleBlock(block), "\n"))
	return true, fsutil.WriteAtomic(path, buf.Bytes(), 0o644)
}

// ruleBlock keeps only the [[rule]] table of a marshalled policyFile.
func ruleBlock(b []byte) []byte {
	if i := bytes.Index(b, []byte("[[rule]]")); i >= 0 {
		b = b[i:]
	}
	if i := bytes.Index(b, []byte("\n[limits]")); i >= 0 {
		b = b[:i+1]
	}
	return b
}

func sameRule(a, b PolicyRule) bool {
	return a.Program == b.Program && a.Decision == b.Decision &&
		equalWords(a.Subcommand, b.Subcommand) && (a.Argv == nil) == (b.Argv == nil) && equalWords(a.Argv, b.Argv)
}

// TrustStore records which project policy files a person vouched for, by
// content hash: a changed file is untrusted again.
type TrustStore struct{ Path string }

func fileHash(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

func (t TrustStore) load() (map[string]string, error) {
	m := map[string]string{}
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", t.Path, err)
	}
	return m, nil
}

// Trusted reports whether the file's current content was vouched for. A
// missing file is trusted (it adds nothing).
func (t TrustStore) Trusted(file string) (bool, error) {
	sum, err := fileHash(file)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	m, err := t.load()
	if err != nil {
		return false, err
	}
	return m[file] == sum, nil
}

// trustedContent reports whether content, the content of file, is empty
// or was vouched for.
func (t TrustStore) trustedContent(file string, content []byte) (bool, error) {
	if len(bytes.TrimSpace(content)) == 0 {
		return true, nil
	}
	m, err := t.load()
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(content)
	return m[file] == hex.EncodeToString(sum[:]), nil
}

// Trust vouches for the file's current content.
func (t TrustStore) Trust(file string) error {
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return err
	}
	unlock, err := fsutil.Lock(t.Path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	sum, err := fileHash(file)
	if err != nil {
		return err
	}
	m, err := t.load()
	if err != nil {
		return err
	}
	m[file] = sum
	data, _ := json.MarshalIndent(m, "", "  ")
	return fsutil.WriteAtomic(t.Path, append(data, '\n'), 0o600)
}
