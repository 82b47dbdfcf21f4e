package validators

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// maxBoundFile bounds a file an approval is bound to; a bigger one is
// hashed as missing, so the approval does not hold.
const maxBoundFile = 4 << 20

// Binding is the digest of what decides what a script runner's words
// run, read as text and never evaluated: the scripts (with their pre and
// post scripts) of the nearest package.json and the .npmrc beside it;
// the Makefile and every file it includes; the justfile. An approval
// bound to it holds only while the digest is the same: a script edited
// after the approval asks again. Files the script itself runs are not
// covered. "" when the program binds nothing for these words.
func Binding(program, dir string, a Approval) string {
	if !a.Binds {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "vtexec-binding-v1\x00%s\x00%q\x00", program, a.Words)
	switch program {
	case "npm", "pnpm", "yarn", "bun":
		bindScripts(h, dir, a.Words)
	case "make", "gmake":
		bindMakefile(h, dir, a.Flags)
	case "just":
		bindFirst(h, dir, "justfile", "Justfile", ".justfile")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashFile adds a file's name and content to h, or that it is missing.
func hashFile(h hash.Hash, path string) ([]byte, bool) {
	data, _, err := fsutil.ReadRegular(path, maxBoundFile, false)
	if err != nil {
		fmt.Fprintf(h, "missing %q\x00", path)
		return nil, false
	}
	fmt.Fprintf(h, "file %q %d\x00", path, len(data))
	h.Write(data)
	return data, true
}

// bindScripts binds npm's scripts: the script the words run, its pre and
// post scripts (for an install, the project's own lifecycle scripts),
// and the project's .npmrc.
func bindScripts(h hash.Hash, dir string, words []string) {
	script := ""
	scripts := func() []string { return []string{"pre" + script, script, "post" + script} }
	switch {
	case len(words) >= 1 && slices.Contains([]string{"install", "i", "add", "ci"}, words[0]):
		scripts = func() []string {
			return []string{"preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"}
		}
	case len(words) >= 2 && slices.Contains([]string{"run", "run-script", "rum", "urn"}, words[0]):
		script = words[1]
	case len(words) >= 1:
		script = map[string]string{"t": "test", "tst": "test"}[words[0]]
		if script == "" {
			script = words[0]
		}
	}
	pkgDir := dir
	for range 64 {
		if _, err := os.Lstat(filepath.Join(pkgDir, "package.json")); err == nil {
			break
		}
		parent := filepath.Dir(pkgDir)
		if parent == pkgDir {
			break
		}
		pkgDir = parent
	}
	fmt.Fprintf(h, "package %q\x00", pkgDir)
	data, _, err := fsutil.ReadRegular(filepath.Join(pkgDir, "package.json"), maxBoundFile, false)
	var pkg struct {
		Scripts map[string]json.RawMessage `json:"scripts"`
	}
	if err != nil || json.Unmarshal(data, &pkg) != nil {
		fmt.Fprintf(h, "no package.json\x00")
	}
	for _, name := range scripts() {
		fmt.Fprintf(h, "script %q %q\x00", name, pkg.Scripts[name])
	}
	hashFile(h, filepath.Join(pkgDir, ".npmrc"))
}

// bindMakefile binds the makefile make reads (-f FILE, or the first of
// GNUmakefile, makefile, Makefile) and, read as text, every file it
// includes, to a depth of 8.
func bindMakefile(h hash.Hash, dir string, flags []string) {
	for _, f := range flags {
		for _, p := range []string{"-f=", "--file=", "--makefile=", "-C=", "--directory="} {
			if v, ok := strings.CutPrefix(f, p); ok {
				fmt.Fprintf(h, "flag %q\x00", f)
				if p == "-C=" || p == "--directory=" {
					dir = filepath.Join(dir, v)
				}
			}
		}
	}
	var files []string
	for _, f := range flags {
		for _, p := range []string{"-f=", "--file=", "--makefile="} {
			if v, ok := strings.CutPrefix(f, p); ok {
				files = append(files, v)
			}
		}
	}
	if len(files) == 0 {
		files = []string{bindFirst(h, dir, "GNUmakefile", "makefile", "Makefile")}
		if files[0] == "" {
			return
		}
	}
	seen := map[string]bool{}
	var include func(path string, depth int)
	include = func(path string, depth int) {
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if seen[path] || depth > 8 {
			return
		}
		seen[path] = true
		data, ok := hashFile(h, path)
		if !ok {
			return
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), maxBoundFile)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			for _, kw := range []string{"include ", "-include ", "sinclude "} {
				if rest, ok := strings.CutPrefix(line, kw); ok {
					for _, f := range strings.Fields(rest) {
						if !strings.ContainsAny(f, "$*?[") {
							include(f, depth+1)
						}
					}
				}
			}
		}
	}
	for _, f := range files {
		include(f, 0)
	}
}

// bindFirst hashes the first of names that exists in dir, and returns
// its path ("" if none does).
func bindFirst(h hash.Hash, dir string, names ...string) string {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if _, err := os.Lstat(p); err == nil {
			if n == "Makefile" || n == "makefile" || n == "GNUmakefile" {
				return p // hashed by its include walk
			}
			hashFile(h, p)
			return p
		}
	}
	fmt.Fprintf(h, "none of %q\x00", names)
	return ""
}
