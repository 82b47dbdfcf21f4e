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
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	unlock, err := fsutil.Lock(path + ".lock")
	if err != nil {
		return false, err
	}
	defer unlock()

	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
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
