// Package gitrepo asks git about a repository before a git command is
// checked: where the repository is (rev-parse), the configuration git
// will read there (config --list), and what its index holds (ls-files).
// It starts git processes and keeps their answers for the process while
// the files they depend on keep their identity; what the answers mean
// for a command is the git validator's to judge.
//
// The validator asks through Inspector, so tests can answer for git.
package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
)

// Inspector answers questions about repositories.
type Inspector interface {
	// Ask returns git's answers in dir with the repository options
	// repoArgs (--git-dir=..., --work-tree=..., absolute).
	Ask(dir string, repoArgs []string) *Answers
	// WalkGitDir lists what in the git directory root must be checked
	// on every inspection.
	WalkGitDir(root string) *Walk
}

// Output is what one git process said.
type Output struct {
	Stdout []byte
	Stderr string
	Err    error
}

// Answers are git's answers for one directory and set of repository
// options.
type Answers struct {
	RevParse Output
	Config   Output
	// Index is from ls-files, run at the top of the working tree when
	// there is one (HasIndex).
	HasIndex bool
	Index    Index
}

// Index is what the inspection needs of ls-files: the submodules
// (gitlinks), and the directories leading to entries, each once, deepest
// first in the order of the entries.
type Index struct {
	Gitlinks []string
	Dirs     []string
	Err      error
}

// Repo is where a git command will work.
type Repo struct {
	GitDir, CommonDir string
	TopLevel          string // "" for a bare repository
}

// Uninspectable is a repository git could not describe.
type Uninspectable struct {
	Dir, Message string
}

func (e *Uninspectable) Error() string {
	return "cannot inspect the repository at " + e.Dir + ": " + e.Message
}

// Repo reads what rev-parse said in dir: nil, nil when dir is in no
// repository; an *Uninspectable when git could not say.
func (a *Answers) Repo(dir string) (*Repo, error) {
	rp := a.RevParse
	lines := strings.Split(strings.TrimSuffix(string(rp.Stdout), "\n"), "\n")
	switch {
	case rp.Err == nil && len(lines) == 4:
		return &Repo{GitDir: lines[0], CommonDir: lines[1], TopLevel: lines[3]}, nil
	case len(lines) == 3 && lines[2] == "true":
		return &Repo{GitDir: lines[0], CommonDir: lines[1]}, nil
	case strings.Contains(rp.Stderr, "not a git repository"):
		return nil, nil
	}
	msg := strings.TrimSpace(rp.Stderr)
	if msg == "" && rp.Err != nil {
		msg = rp.Err.Error()
	}
	return nil, &Uninspectable{Dir: dir, Message: FirstLine(msg)}
}

// Entry is one line of the configuration listing.
type Entry struct {
	Scope  string // system, global, local, worktree, command
	Origin string // file:PATH, command line:, blob:...
	Key    string // as git prints it: section and name lower case
	Value  string
}

// File is the file the entry comes from, absolute (relative names are
// taken from base, where git ran), or "" when it is not from a file.
func (e Entry) File(base string) string {
	f, ok := strings.CutPrefix(e.Origin, "file:")
	if !ok {
		return ""
	}
	if !filepath.IsAbs(f) {
		f = filepath.Join(base, f)
	}
	return f
}

// Includes reports whether the entry includes another file.
func (e Entry) Includes() bool {
	lower := strings.ToLower(e.Key)
	return lower == "include.path" || strings.HasPrefix(lower, "includeif.") && strings.HasSuffix(lower, ".path")
}

// Entries is the configuration listing, in git's order (later entries
// win).
func (a *Answers) Entries() []Entry {
	fields := strings.Split(strings.TrimSuffix(string(a.Config.Stdout), "\x00"), "\x00")
	var out []Entry
	for i := 0; i+2 < len(fields); i += 3 {
		key, value, _ := strings.Cut(fields[i+2], "\n")
		out = append(out, Entry{Scope: fields[i], Origin: fields[i+1], Key: key, Value: value})
	}
	return out
}

// Value is the last value of key (any case) in the listing, as
// git config --get gives it.
func (a *Answers) Value(key string) (string, bool) {
	entries := a.Entries()
	for i := len(entries) - 1; i >= 0; i-- {
		if strings.EqualFold(entries[i].Key, key) {
			return entries[i].Value, true
		}
	}
	return "", false
}

// IncludeTarget resolves an include path as git does: "~/" is the home
// directory, a relative path is relative to the including file.
func IncludeTarget(file, value string) string {
	switch {
	case strings.HasPrefix(value, "~/"):
		home := os.Getenv("HOME")
		if home == "" {
			return ""
		}
		return filepath.Join(home, value[2:])
	case filepath.IsAbs(value):
		return value
	case file != "":
		return filepath.Join(filepath.Dir(file), value)
	}
	return ""
}

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// DirLike reports whether d looks like a git directory (it has HEAD):
// the top one, or a submodule's under modules/.
func DirLike(d string) bool {
	_, err := os.Lstat(filepath.Join(d, "HEAD"))
	return err == nil
}
