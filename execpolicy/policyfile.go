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
	"slices"

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

// AppendRoot appends a [[root]] to the policy file at path, creating it
// if needed, unless the same root is there already.
func AppendRoot(path string, root PolicyRoot, note string) (added bool, err error) {
	added, _, err = appendTo(path, nil, func(old []byte) ([]byte, bool, error) { return withRoot(path, old, root, note) })
	return added, err
}

// AppendTrustedRoot is AppendRoot for a project file, vouched for as
// AppendTrustedRule does.
func (t TrustStore) AppendTrustedRoot(path string, root PolicyRoot, note string) (added, trusted bool, err error) {
	return appendTo(path, &t, func(old []byte) ([]byte, bool, error) { return withRoot(path, old, root, note) })
}

// AppendTrustedRule appends r like AppendRule and vouches for the result,
// but only if the file was vouched for (or empty) before: a rule a person
// approves must not make trusted what someone else wrote into the file.
// trusted reports whether the file is trusted afterwards.
func (t TrustStore) AppendTrustedRule(path string, r PolicyRule, note string) (added, trusted bool, err error) {
	return appendRule(path, r, note, &t)
}

func appendRule(path string, r PolicyRule, note string, ts *TrustStore) (added, trusted bool, err error) {
	return appendTo(path, ts, func(old []byte) ([]byte, bool, error) { return withRule(path, old, r, note) })
}

// appendTo rewrites the policy file at path with what add makes of its
// content, under its lock; for a project file (ts set) it keeps the
// file's trust as AppendTrustedRule says.
func appendTo(path string, ts *TrustStore, add func(old []byte) ([]byte, bool, error)) (added, trusted bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, false, err
	}
	if ts != nil {
		// A project's .vtexec must not lead elsewhere: vtexec would write
		// through the link.
		if err := fsutil.RealDir(filepath.Dir(path)); err != nil {
			return false, false, err
		}
	}
	if ts != nil {
		if err := KeepOutOfGit(filepath.Dir(path)); err != nil {
			return false, false, err
		}
	}
	unlock, err := fsutil.Lock(path + ".lock")
	if err != nil {
		return false, false, err
	}
	defer unlock()

	old, _, err := ReadLayer(path, false)
	if err != nil {
		return false, false, err
	}
	if ts != nil {
		if trusted, err = ts.trustedContent(path, old); err != nil {
			return false, false, err
		}
	}
	content, added, err := add(old)
	if err != nil || !added {
		return added, trusted, err
	}
	if !trusted {
		return true, false, fsutil.WriteAtomic(path, content, 0o644)
	}
	// A reader must never see the new content untrusted: the store trusts
	// it beside the old before the file is renamed in, and forgets the old
	// after. (A reader reads the store before and after the file.)
	sum := contentHash(content)
	if err := ts.update(path, func(h []string) []string { return append(h, sum) }); err != nil {
		return false, false, err
	}
	if err := fsutil.WriteAtomic(path, content, 0o644); err != nil {
		return false, false, err
	}
	return true, true, ts.update(path, func([]string) []string { return []string{sum} })
}

// withRoot returns old with root appended, unless it is already there.
func withRoot(path string, old []byte, root PolicyRoot, note string) ([]byte, bool, error) {
	existing := &Policy{}
	if err := existing.add(Layer{Path: path, Trusted: true}, old); err != nil {
		return nil, false, err
	}
	for _, e := range existing.Roots {
		switch {
		case e.Path == root.Path && e.Access == root.Access:
			return nil, false, nil
		case e.Path == root.Path:
			return nil, false, &PolicyError{File: path, Line: e.Line, Problem: fmt.Sprintf("root %s is there already, %s: change its access in the file rather than add a second one", e.Path, e.Access)}
		}
	}
	root.File, root.Line = "", 0
	block, err := toml.Marshal(struct {
		Root []PolicyRoot `toml:"root"`
	}{[]PolicyRoot{root}})
	if err != nil {
		return nil, false, err
	}
	i := bytes.Index(block, []byte("[[root]]"))
	if i < 0 {
		return nil, false, fmt.Errorf("policy: no [[root]] in %q", block)
	}
	return withBlock(old, note, block[i:]), true, nil
}

// withBlock returns old with a blank line, "# note" and block after it.
func withBlock(old []byte, note string, block []byte) []byte {
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
	buf.Write(block)
	return buf.Bytes()
}

// gitignore keeps a person's local approvals, vtexec's lock files and
// the temporary files of an interrupted write out of the project's
// history; oldGitignores are what earlier versions wrote.
const gitignore = "# written by vtexec: local approvals, lock and temporary files stay out of git\npolicy.local.toml\n*.lock\n.*.tmp-*\n"

var oldGitignores = []string{
	"# written by vtexec: local approvals and lock files stay out of git\npolicy.local.toml\n*.lock\n",
	"policy.local.toml\n*.lock\n",
}

// KeepOutOfGit writes dir/.gitignore (gitignore) unless it exists; a
// person's own file is left as it is, the one an earlier vtexec wrote is
// brought up to date. It writes only a new file in a real directory, so
// a link planted at dir or dir/.gitignore is never followed.
func KeepOutOfGit(dir string) error {
	path := filepath.Join(dir, ".gitignore")
	err := fsutil.CreateNew(path, []byte(gitignore), 0o644)
	if errors.Is(err, os.ErrExist) {
		if old, _, err := fsutil.ReadRegular(path, 4096, false); err == nil && slices.Contains(oldGitignores, string(old)) {
			return fsutil.WriteAtomic(path, []byte(gitignore), 0o644)
		}
		return nil
	}
	return err
}

// withRule returns old with r appended, unless r is already there.
func withRule(path string, old []byte, r PolicyRule, note string) ([]byte, bool, error) {
	existing := &Policy{}
	if err := existing.add(Layer{Path: path, Trusted: true}, old); err != nil {
		return nil, false, err
	}
	for _, e := range existing.Rules {
		if sameRule(e, r) {
			return nil, false, nil
		}
	}
	r.Match, r.NotMatch, r.File, r.Line = nil, nil, "", 0
	block, err := toml.Marshal(policyFile{Rule: []PolicyRule{r}})
	if err != nil {
		return nil, false, err
	}
	if r.Argv != nil && len(r.Argv) == 0 {
		// "no arguments" must be written out: without the key the rule
		// would allow the program with any arguments.
		block = append(bytes.TrimRight(ruleBlock(block), "\n"), []byte("\nargv = []\n")...)
	}
	content := withBlock(old, note, bytes.TrimLeft(ruleBlock(block), "\n"))
	// Never write what the loader would refuse, or read back as another
	// rule: one bad line would stop every command in the workspace.
	back := &Policy{}
	if err := back.add(Layer{Path: path, Trusted: true}, content); err != nil {
		return nil, false, fmt.Errorf("the rule %s cannot be written: %v", r, err)
	}
	if n := len(back.Rules); n == 0 || !sameRule(back.Rules[n-1], r) {
		return nil, false, fmt.Errorf("the rule %s cannot be written: it would read back as another rule", r)
	}
	return content, true, nil
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
		equalWords(a.Subcommand, b.Subcommand) && (a.Argv == nil) == (b.Argv == nil) && equalWords(a.Argv, b.Argv) &&
		a.Shaped == b.Shaped && equalWords(a.Flags, b.Flags) && equalWords(a.Operands, b.Operands) && a.AnyOperands == b.AnyOperands && a.Bound == b.Bound
}

// TrustStore records which project policy files a person vouched for, by
// content hash: a changed file is untrusted again. It is a JSON object
// from file path to a hash, or to a list of hashes while a rule is being
// added (see appendRule).
type TrustStore struct{ Path string }

// TrustSnapshot is the trust store as read at one moment.
type TrustSnapshot map[string]hashes

// hashes is one hash (written as a string) or several (a list).
type hashes []string

func (h *hashes) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*h = hashes{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("a trusted file maps to a hash or a list of hashes")
	}
	*h = many
	return nil
}

func (h hashes) MarshalJSON() ([]byte, error) {
	if len(h) == 1 {
		return json.Marshal(h[0])
	}
	return json.Marshal([]string(h))
}

func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Trusts reports whether data, the content of file, was vouched for. A
// missing file (nil data) is trusted: it adds nothing.
func (s TrustSnapshot) Trusts(file string, data []byte) bool {
	if data == nil {
		return true
	}
	sum := contentHash(data)
	for _, h := range s[file] {
		if h == sum {
			return true
		}
	}
	return false
}

// Snapshot reads the trust store and returns it with the identity of the
// file read. A missing store is empty. The store is read like a policy
// file: a regular file of at most MaxPolicyBytes, no link followed.
func (t TrustStore) Snapshot() (TrustSnapshot, fsutil.Identity, error) {
	m := TrustSnapshot{}
	data, id, err := ReadLayer(t.Path, false)
	if err != nil {
		return nil, fsutil.Identity{}, err
	}
	if data == nil {
		return m, id, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fsutil.Identity{}, &PolicyError{File: t.Path, Problem: "not a trust store: " + err.Error()}
	}
	return m, id, nil
}

// Trusted reports whether the file's current content was vouched for. A
// missing file is trusted (it adds nothing). The store is read before and,
// if needed, after the file, so that an update that adds a rule (which
// trusts the new content before renaming it in) is never seen half-done.
func (t TrustStore) Trusted(file string) (bool, error) {
	before, _, err := t.Snapshot()
	if err != nil {
		return false, err
	}
	data, _, err := ReadLayer(file, false)
	if err != nil {
		return false, err
	}
	if before.Trusts(file, data) {
		return true, nil
	}
	after, _, err := t.Snapshot()
	if err != nil {
		return false, err
	}
	return after.Trusts(file, data), nil
}

// trustedContent reports whether content, the content of file, is empty
// or was vouched for.
func (t TrustStore) trustedContent(file string, content []byte) (bool, error) {
	if len(bytes.TrimSpace(content)) == 0 {
		return true, nil
	}
	m, _, err := t.Snapshot()
	if err != nil {
		return false, err
	}
	return m.Trusts(file, content), nil
}

// Trust vouches for the file's current content.
func (t TrustStore) Trust(file string) error {
	data, _, err := ReadLayer(file, false)
	if err != nil {
		return err
	}
	if data == nil {
		return fmt.Errorf("%s: %w", file, os.ErrNotExist)
	}
	return t.update(file, func([]string) []string { return []string{contentHash(data)} })
}

// update changes the hashes of one file under the store's lock.
func (t TrustStore) update(file string, fn func([]string) []string) error {
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return err
	}
	unlock, err := fsutil.Lock(t.Path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	m, _, err := t.Snapshot()
	if err != nil {
		return err
	}
	m[file] = fn(m[file])
	data, _ := json.MarshalIndent(m, "", "  ")
	return fsutil.WriteAtomic(t.Path, append(data, '\n'), 0o600)
}
