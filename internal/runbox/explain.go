package runbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/workspace"
)

// A program that fails on what the box denied says so only in its own
// words ("Read-only file system", "Network is unreachable"), which an
// agent cannot tell from its own mistake. Explain matches a failed run's
// error output against the box's own rules and names what the box
// denied and how to grant it; a failure the box did not cause gets no
// note.

// CodeBoxDenied is the warning of a failed run whose error output names
// something the box denied.
const CodeBoxDenied = codes.BoxDenied

// Note is one thing the box denied that a failed run's output names.
type Note struct {
	Op, Path, Why, Hint string
}

// Facts are what Explain needs to know of the run.
type Facts struct {
	Root      string   // the workspace
	Writable  []string // other places the run may write (read-write roots)
	Network   bool     // some command of the run had the network
	Protected []string // protected names at the root (a trailing "/" marks a directory)
}

var (
	writeDenied = []string{"Read-only file system", "EROFS", "Permission denied", "EACCES", "Operation not permitted", "EPERM"}
	netDenied   = []string{"Network is unreachable", "ENETUNREACH", "Could not resolve host", "Temporary failure in name resolution",
		"getaddrinfo ENOTFOUND", "getaddrinfo EAI_AGAIN", "Name or service not known", "No address associated with hostname",
		"Failed to establish a new connection", "dial tcp: lookup"}
	pathLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bpath\b`) })
	pathIn   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:'(/[^'\n]+)'|"(/[^"\n]+)"|(?:^|[\s(:=])(/[^\s'":,()]+))`)
	})
)

// Explain returns what the box denied that stderr, the error output of
// a run that failed, names.
func Explain(stderr string, f Facts) []Note {
	var notes []Note
	seen := map[string]bool{}
	// A tool may name the path on a line of its own (npm: "npm error
	// path /x" after "npm error code EACCES").
	denied := containsAny(stderr, writeDenied)
	for _, line := range strings.Split(stderr, "\n") {
		switch {
		case containsAny(line, writeDenied) || denied && pathLine().MatchString(line):
			for _, p := range pathsIn(line) {
				if seen[p] {
					continue
				}
				if n, ok := f.writeNote(p); ok {
					seen[p] = true
					notes = append(notes, n)
				}
			}
		case !f.Network && containsAny(line, netDenied) && !seen["network"]:
			seen["network"] = true
			notes = append(notes, Note{Op: "connect", Why: "commands run without the network unless a person grants it",
				Hint: "ask the person to answer network, or to run vtexec policy allow --network -- COMMAND"})
		}
		if len(notes) >= 4 {
			break
		}
	}
	return notes
}

// writeNote says why the box denies writing p, if it does.
func (f Facts) writeNote(p string) (Note, bool) {
	p = filepath.Clean(p)
	inside := func(dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	for _, n := range f.Protected {
		name := strings.TrimSuffix(n, "/")
		if inside(filepath.Join(f.Root, name)) {
			return Note{Op: "write", Path: p, Why: name + " is a protected name: commands may read it, never change it",
				Hint: "a person changes it, outside vtexec"}, true
		}
	}
	if inside(filepath.Join(f.Root, ".git")) {
		return Note{}, false // the git directory's rules are git's own refusals
	}
	if inside(f.Root) || inside(confine.PrivateShm) || slices.ContainsFunc(f.Writable, inside) {
		return Note{}, false // the box lets the run write there: not the box's doing
	}
	return Note{Op: "write", Path: p, Why: "the box lets commands write only the workspace, their own HOME and TMPDIR, and the policy's read-write roots",
		Hint: "write inside the workspace, or have the person add the directory as a [[root]] with access = \"read-write\" (vtexec policy root add PATH)"}, true
}

// containsAny reports whether s holds one of subs, in any case (Go's
// errors are lower case: "open /x: read-only file system").
func containsAny(s string, subs []string) bool {
	s = strings.ToLower(s)
	for _, sub := range subs {
		if strings.Contains(s, strings.ToLower(sub)) {
			return true
		}
	}
	return false
}

func pathsIn(line string) []string {
	var out []string
	for _, m := range pathIn().FindAllStringSubmatch(line, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, strings.TrimRight(g, ".;"))
			}
		}
	}
	return out
}

// ProtectedNames are the protected names of a workspace with the
// policy's own.
func ProtectedNames(more []string) []string {
	return append(append([]string{}, workspace.ProtectedNames...), more...)
}
