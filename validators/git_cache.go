package validators

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vtexec/vtexec/internal/dirwatch"
	"github.com/vtexec/vtexec/progenv"
)

// Caching git's answers. The inspection (git_repo.go) asks three git
// processes about a repository: rev-parse, config --list and ls-files.
// Their outputs, and what is derived from them alone, are kept for the
// process, keyed by the directory, the repository options, the
// environment and the git program, and valid while every file they
// depend on keeps its identity (lstat: device, inode, mode, owner, size,
// modification and change times):
//   - on the way from the directory up to where discovery found the
//     repository (up to / without one, or with --git-dir), each
//     directory's place (device, inode, mode, owner) and every entry
//     discovery looks at there (.git, HEAD, objects, refs, commondir; at
//     the level where it found .git, only .git);
//   - the git program, and the file behind it if it is a link;
//   - the git directory and common directory themselves (an entry added
//     or removed there: a shared index, a reftable), and their HEAD,
//     config, config.worktree, commondir, gitdir and index;
//   - the user's configuration files, whether they exist or not;
//   - every file the listing names as an origin, and every include.path
//     and includeIf.*.path target, whether it exists or not.
//
// An entry is trusted only once confirmed: a run of the helpers saw the
// same identities just before and just after it, and none of the files
// had changed within gitRacyWindow (timestamps are coarse, so a change in
// the same tick would keep the identity). Until then the helpers run
// again. Anything the key cannot describe (an include through a path git
// resolves otherwise, a reftable, a file lstat cannot reach) is not
// cached. Checks of the working tree and the file system (placement,
// links in the git directory, index directories) are done on every
// inspection; the git directory's walk (gitWalkDir) is kept while no
// directory it read has changed, and only lists what to check.

const (
	// gitCacheSize bounds the repositories remembered; past it the cache
	// starts afresh.
	gitCacheSize = 64
	// gitRacyWindow is how recent a change keeps answers from being
	// trusted.
	gitRacyWindow = 50 * time.Millisecond
)

// gitHelperRuns counts the git processes the inspection started: a seam
// for tests.
var gitHelperRuns atomic.Int64

// fileID is the identity of a file as lstat gives it; the zero value
// (with errno ENOENT or ENOTDIR) is a file that does not exist.
type fileID struct {
	errno          syscall.Errno
	dev, ino       uint64
	mode, uid, gid uint32
	size           int64
	mtime, ctime   int64
}

// usable reports whether the identity can stand for the file: it exists,
// or is plainly missing.
func (id fileID) usable() bool {
	return id.errno == 0 || id.errno == syscall.ENOENT || id.errno == syscall.ENOTDIR
}

// place is the part of the identity that says where a directory on the
// way is and who owns it, without its times, which change with every
// entry made in it.
func (id fileID) place() fileID {
	id.size, id.mtime, id.ctime = 0, 0, 0
	return id
}

// racy reports whether the file changed too recently, as of now, to be
// sure that a change in the same tick would show.
func (id fileID) racy(now time.Time) bool {
	limit := now.Add(-gitRacyWindow).UnixNano()
	return id.errno == 0 && (id.mtime > limit || id.ctime > limit)
}

// fileDep is a file answers depend on and its identity.
type fileDep struct {
	path  string
	place bool // only its place counts (a directory on the way)
	id    fileID
}

// depList gathers the files answers depend on.
type depList struct {
	deps      []fileDep
	seen      map[string]bool
	uncertain bool // something the key cannot describe
}

func (l *depList) add(p string, place bool) {
	if p == "" || !filepath.IsAbs(p) {
		l.uncertain = true
		return
	}
	p = filepath.Clean(p)
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if l.seen[p] {
		return
	}
	l.seen[p] = true
	l.deps = append(l.deps, fileDep{path: p, place: place})
}

// stat takes every file's identity now.
func (l *depList) stat() {
	for i := range l.deps {
		d := &l.deps[i]
		d.id = lstatID(d.path)
		if d.place {
			d.id = d.id.place()
		}
		if !d.id.usable() {
			l.uncertain = true
		}
	}
}

// unchanged reports whether every file still has the identity recorded.
func unchanged(deps []fileDep) bool {
	for _, d := range deps {
		id := lstatID(d.path)
		if d.place {
			id = id.place()
		}
		if id != d.id {
			return false
		}
	}
	return true
}

func racy(deps []fileDep, now time.Time) bool {
	for _, d := range deps {
		if !d.place && d.id.racy(now) {
			return true
		}
	}
	return false
}

// gitOutput is what one helper process said.
type gitOutput struct {
	stdout []byte
	stderr string
	err    error
}

// gitAnswers are the helpers' answers for one directory and set of
// repository options.
type gitAnswers struct {
	revParse gitOutput
	config   gitOutput
	// index is from ls-files, run at the top of the working tree when
	// there is one (hasIndex).
	hasIndex bool
	index    gitIndex
}

// gitIndex is what the inspection needs of ls-files: the submodules
// (gitlinks), and the directories leading to entries in the order
// leadingDirs checks them.
type gitIndex struct {
	gitlinks []string
	dirs     []string
	err      error
}

type gitCacheKey struct{ dir, repoArgs, env, prog string }

type gitCacheEntry struct {
	answers   *gitAnswers
	deps      []fileDep
	confirmed bool
}

var gitCache struct {
	sync.Mutex
	m map[gitCacheKey]*gitCacheEntry
}

// gitEnv remembers the last environment made by gitEnvironment, the
// process environment it was made from, and the two joined as a key.
var gitEnv struct {
	sync.Mutex
	source, env []string
	key         string
}

// gitEnvironment is the environment the helpers run with, and it joined
// for a key. The caller must not modify it.
func gitEnvironment() ([]string, string) {
	source := os.Environ()
	gitEnv.Lock()
	defer gitEnv.Unlock()
	if gitEnv.env == nil || !slices.Equal(source, gitEnv.source) {
		gitEnv.source = source
		gitEnv.env = append(withHome(progenv.Env(source), inspectionHome()), "LC_ALL=C", "LANGUAGE=C")
		gitEnv.key = strings.Join(gitEnv.env, "\x00")
	}
	return gitEnv.env, gitEnv.key
}

// withHome returns env with HOME set to home.
func withHome(env []string, home string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+home)
}

// inspectionHome is the HOME git's helpers run with: an empty directory
// of this user's. Commands run with a private HOME that holds no more
// than the user's name and email, so the inspection must not judge the
// user's global configuration either: a value it holds (a token in an
// insteadOf URL, an alias) is then never what an allowed command prints.
func inspectionHome() string {
	inspectionHomeOnce.Do(func() {
		inspectionHomeDir = "/nonexistent"
		dir := filepath.Join(os.TempDir(), "vtexec-"+strconv.Itoa(os.Geteuid()), "git-inspection-home")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return
		}
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			inspectionHomeDir = dir
		}
	})
	return inspectionHomeDir
}

var (
	inspectionHomeOnce sync.Once
	inspectionHomeDir  string
)

// gitAsk returns the helpers' answers for dir and repoArgs, from the
// cache when it holds confirmed answers whose files are unchanged.
func gitAsk(dir string, repoArgs []string) *gitAnswers {
	env, envKey := gitEnvironment()
	prog, _ := gitProgram()
	key := gitCacheKey{dir: dir, repoArgs: strings.Join(repoArgs, "\x00"), env: envKey, prog: prog}
	gitCache.Lock()
	e := gitCache.m[key]
	gitCache.Unlock()
	if e != nil && e.confirmed && unchanged(e.deps) {
		return e.answers
	}
	// The files the last answers depended on, as they are before the
	// helpers run again: if the new answers depend on the same files and
	// they are still so afterwards, nothing changed while git read them.
	var before []fileDep
	if e != nil {
		before = make([]fileDep, len(e.deps))
		copy(before, e.deps)
		(&depList{deps: before}).stat()
	}
	a := gitRun(dir, repoArgs)
	l := a.dependencies(dir, repoArgs, prog, env)
	l.stat()
	gitCache.Lock()
	defer gitCache.Unlock()
	if l.uncertain {
		delete(gitCache.m, key)
		return a
	}
	if gitCache.m == nil || len(gitCache.m) >= gitCacheSize {
		gitCache.m = map[gitCacheKey]*gitCacheEntry{}
	}
	gitCache.m[key] = &gitCacheEntry{answers: a, deps: l.deps,
		confirmed: before != nil && sameDeps(before, l.deps) && !racy(l.deps, time.Now())}
	return a
}

func sameDeps(a, b []fileDep) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// gitRun runs the helpers.
func gitRun(dir string, repoArgs []string) *gitAnswers {
	a := &gitAnswers{}
	// The listing does not wait for rev-parse and ls-files, which does.
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		a.config.stdout, a.config.stderr, a.config.err = gitHelper(dir, repoArgs, "config", "--list", "--show-origin", "--show-scope", "--includes", "-z")
	}()
	defer func() { <-listed }()
	a.revParse.stdout, a.revParse.stderr, a.revParse.err = gitHelper(dir, repoArgs, "rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-toplevel")
	repo, err := gitParseRevParse(dir, a.revParse)
	if err != nil || repo == nil || repo.topLevel == "" {
		return a
	}
	a.hasIndex = true
	seen := map[string]bool{}
	a.index.err = gitHelperStream(repo.topLevel, repoArgs, func(entry string) {
		_, path, ok := strings.Cut(entry, "\t")
		if !ok {
			return
		}
		if strings.HasPrefix(entry, "160000 ") {
			a.index.gitlinks = append(a.index.gitlinks, path)
		}
		for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path[:i], '/') {
			d := path[:i]
			if seen[d] {
				break // and so were the ones above it
			}
			seen[d] = true
			a.index.dirs = append(a.index.dirs, d)
		}
	}, "ls-files", "--stage", "-z", "--full-name")
	return a
}

// dependencies lists the files the answers depend on.
func (a *gitAnswers) dependencies(dir string, repoArgs []string, prog string, env []string) *depList {
	l := &depList{}
	l.add(prog, false)
	if real, err := filepath.EvalSymlinks(prog); err == nil && real != prog {
		l.add(real, false) // a git upgraded behind a link
	}
	repo, err := gitParseRevParse(dir, a.revParse)
	if err != nil {
		repo = nil
	}
	// Discovery goes up from dir and stops where it finds the
	// repository; without one, or with the repository named in
	// repoArgs, every level up to / counts.
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		l.add(d, true)
		found := len(repoArgs) == 0 && repo != nil && gitFoundAt(d, repo)
		if found && d != repo.gitDir {
			// Found through its .git, which git looks at first: it
			// does not ask whether d itself is a git directory.
			l.add(filepath.Join(d, ".git"), false)
			break
		}
		for _, name := range []string{".git", "HEAD", "objects", "refs", "commondir"} {
			l.add(filepath.Join(d, name), false)
		}
		if found || d == filepath.Dir(d) {
			break
		}
	}
	for _, arg := range repoArgs {
		if _, value, ok := strings.Cut(arg, "="); ok {
			l.add(value, false)
		}
	}
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if home != "" {
		l.add(filepath.Join(home, ".gitconfig"), false)
		l.add(filepath.Join(home, ".config", "git", "config"), false)
	}
	if repo != nil {
		for _, gd := range []string{repo.gitDir, repo.commonDir} {
			l.add(gd, false)
			for _, name := range []string{"HEAD", "config", "config.worktree", "commondir", "gitdir", "index"} {
				l.add(filepath.Join(gd, name), false)
			}
		}
		if repo.topLevel != "" {
			l.add(filepath.Join(repo.topLevel, ".git"), false)
		}
	}
	// git names a file it found through discovery relative to the top of
	// the working tree, where it runs from.
	base := dir
	if repo != nil && repo.topLevel != "" {
		base = repo.topLevel
	}
	fields := strings.Split(strings.TrimSuffix(string(a.config.stdout), "\x00"), "\x00")
	for i := 0; i+2 < len(fields); i += 3 {
		origin := fields[i+1]
		key, value, _ := strings.Cut(fields[i+2], "\n")
		file := ""
		switch {
		case strings.HasPrefix(origin, "file:"):
			file = strings.TrimPrefix(origin, "file:")
			if !filepath.IsAbs(file) {
				file = filepath.Join(base, file)
			}
			l.add(file, false)
		case strings.HasPrefix(origin, "command line:"):
			// From the environment, which is in the key.
		default:
			l.uncertain = true
		}
		lower := strings.ToLower(key)
		if lower == "include.path" || strings.HasPrefix(lower, "includeif.") && strings.HasSuffix(lower, ".path") {
			if strings.Contains(value, "%(") || strings.HasPrefix(value, "~") && !strings.HasPrefix(value, "~/") {
				l.uncertain = true // git resolves these in ways gitIncludeTarget does not
			}
			l.add(gitIncludeTarget(file, value), false)
		}
		if lower == "extensions.refstorage" && !strings.EqualFold(value, "files") {
			l.uncertain = true // HEAD lives in the reftable
		}
	}
	return l
}

// gitFoundAt reports whether discovery stopped at d for repo: d/.git is
// its git directory, or a .git file at the top of its working tree, or d
// is the git directory itself.
func gitFoundAt(d string, repo *gitRepo) bool {
	dotGit := filepath.Join(d, ".git")
	if dotGit == repo.gitDir || d == repo.gitDir {
		return true
	}
	fi, err := os.Lstat(dotGit)
	return err == nil && fi.Mode().IsRegular() && d == repo.topLevel
}

// Walking the git directory (gitDirContents) is vtexec's own look at the
// file system, so it is done again unless no directory it read has
// changed: the walk keeps each directory's identity, taken before it was
// read, and what it found (links to resolve, nested git directories to
// check), which are checked again every time.

// gitWalkItem is something the walk found, checked on every inspection.
type gitWalkItem struct {
	path   string
	nested bool // a nested git directory, else a symbolic link
}

type gitWalk struct {
	dirs     []fileDep
	items    []gitWalkItem
	tooLarge bool
	// watch, where inotify can be had, watches every directory in dirs
	// since before it was read; nil means their identities are compared.
	watch *dirwatch.Watch
}

var gitWalkCache struct {
	sync.Mutex
	m map[string]*gitWalk
}

// gitWalkDir walks root, or returns the last walk if none of the
// directories it read has changed. The first walk of a root keeps the
// directories' identities; a root walked again is walked once more with
// an inotify watch (worth it for a process that checks git commands
// again, wasted on one that checks once), which then stands for them.
func gitWalkDir(root string) *gitWalk {
	gitWalkCache.Lock()
	w := gitWalkCache.m[root]
	gitWalkCache.Unlock()
	var watch *dirwatch.Watch
	switch {
	case w == nil:
	case w.watch != nil:
		if !w.watch.Changed() {
			return w
		}
		watch = dirwatch.New()
	default:
		if watch = dirwatch.New(); watch == nil && unchanged(w.dirs) {
			return w // no inotify here: the identities stand
		}
	}
	w = walkGitDir(root, watch)
	now := time.Now()
	for _, d := range w.dirs {
		if !d.id.usable() || d.id.racy(now) {
			w.watch.Close()
			w.watch = nil
			return w
		}
	}
	gitWalkCache.Lock()
	defer gitWalkCache.Unlock()
	if gitWalkCache.m == nil || len(gitWalkCache.m) >= gitCacheSize {
		for _, old := range gitWalkCache.m {
			old.watch.Close()
		}
		gitWalkCache.m = map[string]*gitWalk{}
	}
	if old := gitWalkCache.m[root]; old != nil {
		old.watch.Close()
	}
	gitWalkCache.m[root] = w
	return w
}

// walkGitDir walks the git directory root, adding each directory to
// watch (if any) before it reads it.
func walkGitDir(root string, watch *dirwatch.Watch) *gitWalk {
	w := &gitWalk{watch: watch}
	read := func(d string) {
		if w.watch != nil && !w.watch.Add(d) {
			w.watch.Close()
			w.watch = nil
		}
		w.dirs = append(w.dirs, fileDep{path: d, id: lstatID(d)})
	}
	read(root)
	// Not counted against a request's budget: the walk is kept between
	// requests, and bounded by gitDirLimit.
	err := walkTree(nil, root, gitDirLimit, func(p string, e os.DirEntry) (bool, error) {
		switch {
		case e.Type()&os.ModeSymlink != 0:
			w.items = append(w.items, gitWalkItem{path: p})
		case e.IsDir() && e.Name() == "hooks" && gitDirLike(filepath.Dir(p)):
			return false, nil // hooks never run (core.hooksPath is overridden)
		case e.IsDir():
			if gitDirLike(p) {
				// A submodule's or worktree's git directory: git reads
				// its objects and common directory.
				w.items = append(w.items, gitWalkItem{path: p, nested: true})
			}
			read(p)
		}
		return true, nil
	})
	w.tooLarge = errors.Is(err, errTreeTooLarge)
	return w
}
