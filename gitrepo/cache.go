package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/progenv"
)

// Caching git's answers. The inspection (the git validator) asks three git
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
// same identities just before and just after it, or, for the first run,
// every file had last changed more than RacyWindow before it began (and
// so did the directory of one missing); and none of the files had
// changed within RacyWindow (timestamps are coarse, so a change in the
// same tick would keep the identity). Until then the helpers run again.
// Anything the key cannot describe (an include through a path git
// resolves otherwise, a reftable, a file lstat cannot reach) is not
// cached. Checks of the working tree and the file system (placement,
// links in the git directory, index directories) are done on every
// inspection; the git directory's walk (WalkGitDir) is kept while no
// directory it read has changed, and only lists what to check.

const (
	// cacheSize bounds the repositories remembered; past it the cache
	// starts afresh.
	cacheSize = 64
	// RacyWindow is how recent a change keeps answers from being trusted.
	RacyWindow = 50 * time.Millisecond
	// helperTimeout bounds one git process.
	helperTimeout = 10 * time.Second
)

// Cache is the Inspector that runs git and keeps its answers. Its
// methods are safe for concurrent use.
type Cache struct {
	runs atomic.Int64

	mu      sync.Mutex
	answers map[cacheKey]*cacheEntry
	walks   map[string]*Walk
	running map[cacheKey]chan struct{} // closed when the helpers for the key end

	envMu          sync.Mutex
	envSource, env []string
	envKey         string

	homeOnce sync.Once
	home     string
}

// New returns an empty Cache.
func New() *Cache { return &Cache{} }

var shared = New()

// Shared is the process's Cache, used where no Inspector is given: one
// process checks many commands in the same repositories.
func Shared() *Cache { return shared }

// Runs is how many git processes the cache has started.
func (c *Cache) Runs() int64 { return c.runs.Load() }

type cacheKey struct{ dir, repoArgs, env, prog string }

type cacheEntry struct {
	answers   *Answers
	deps      []fileDep
	confirmed bool
}

// fileDep is a file answers depend on and its identity.
type fileDep struct {
	path  string
	place bool // only its place counts (a directory on the way)
	id    fsutil.Identity
	err   bool // lstat failed other than by the file's absence
}

// identify takes the file's identity now.
func (d *fileDep) identify() {
	id, err := fsutil.Stat(d.path, false)
	d.id, d.err = id, err != nil
	if d.place {
		// Where a directory on the way is and who owns it, without its
		// times, which change with every entry made in it.
		d.id.Size, d.id.Mtime, d.id.Ctime = 0, 0, 0
	}
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
		l.deps[i].identify()
		if l.deps[i].err {
			l.uncertain = true
		}
	}
}

// unchanged reports whether every file still has the identity recorded.
func unchanged(deps []fileDep) bool {
	for _, d := range deps {
		now := fileDep{path: d.path, place: d.place}
		now.identify()
		if now != d {
			return false
		}
	}
	return true
}

// racy reports whether a file changed too recently, as of now, to be sure
// that a change in the same tick would show.
func racy(deps []fileDep, now time.Time) bool {
	for _, d := range deps {
		if !d.place && d.id.Recent(now, RacyWindow) {
			return true
		}
	}
	return false
}

// environment is the environment the helpers run with, and it joined for
// a key. The caller must not modify it.
func (c *Cache) environment() ([]string, string) {
	source := os.Environ()
	c.envMu.Lock()
	defer c.envMu.Unlock()
	if c.env == nil || !slices.Equal(source, c.envSource) {
		c.envSource = source
		c.env = append(withHome(progenv.Env(source), c.inspectionHome()), "LC_ALL=C", "LANGUAGE=C")
		c.envKey = strings.Join(c.env, "\x00")
	}
	return c.env, c.envKey
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
func (c *Cache) inspectionHome() string {
	c.homeOnce.Do(func() {
		c.home = "/nonexistent"
		dir := filepath.Join(os.TempDir(), "vtexec-"+strconv.Itoa(os.Geteuid()), "git-inspection-home")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return
		}
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			c.home = dir
		}
	})
	return c.home
}

// Ask returns the helpers' answers for dir and repoArgs, from the cache
// when it holds confirmed answers whose files are unchanged.
func (c *Cache) Ask(dir string, repoArgs []string) *Answers {
	env, envKey := c.environment()
	prog, _ := Program()
	key := cacheKey{dir: dir, repoArgs: strings.Join(repoArgs, "\x00"), env: envKey, prog: prog}
	c.mu.Lock()
	e := c.answers[key]
	if e == nil || !e.confirmed {
		// Asked while the helpers run for the same key (a stream checks
		// lines side by side): their answers, once confirmed, are as
		// good as new ones (the files are compared as for any kept
		// answers), so wait for them instead of running git alongside.
		if running := c.running[key]; running != nil {
			c.mu.Unlock()
			<-running
			c.mu.Lock()
			e = c.answers[key]
		}
	}
	c.mu.Unlock()
	if e != nil && e.confirmed && unchanged(e.deps) {
		return e.answers
	}
	c.mu.Lock()
	running := c.running[key]
	if running == nil {
		running = make(chan struct{})
		if c.running == nil {
			c.running = map[cacheKey]chan struct{}{}
		}
		c.running[key] = running
		defer func() {
			c.mu.Lock()
			delete(c.running, key)
			c.mu.Unlock()
			close(running)
		}()
	}
	c.mu.Unlock()
	// The files the last answers depended on, as they are before the
	// helpers run again: if the new answers depend on the same files and
	// they are still so afterwards, nothing changed while git read them.
	var before []fileDep
	if e != nil {
		before = slices.Clone(e.deps)
		(&depList{deps: before}).stat()
	}
	start := time.Now()
	a := c.run(dir, repoArgs, env)
	if afterHelpers != nil {
		afterHelpers()
	}
	l := a.dependencies(dir, repoArgs, prog, env)
	l.stat()
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.uncertain {
		delete(c.answers, key)
		return a
	}
	if c.answers == nil || len(c.answers) >= cacheSize {
		c.answers = map[cacheKey]*cacheEntry{}
	}
	confirmed := !racy(l.deps, time.Now())
	if before != nil {
		confirmed = confirmed && slices.Equal(before, l.deps)
	} else {
		// The first run has no identities from before it: files that had
		// all settled well before it began cannot have changed while git
		// read them.
		confirmed = confirmed && settledBefore(l.deps, start)
	}
	c.answers[key] = &cacheEntry{answers: a, deps: l.deps, confirmed: confirmed}
	return a
}

// afterHelpers, set by tests, runs between the helpers and the look at
// the files their answers depend on.
var afterHelpers func()

// settledBefore reports whether none of deps can have changed since
// start: each one there last changed (its ctime, which no one can set
// back) more than RacyWindow before it, and where one is missing, so did
// the nearest directory above it that is there (an entry made or removed
// changes it). Where the system gives no change time, it cannot tell.
func settledBefore(deps []fileDep, start time.Time) bool {
	for _, d := range deps {
		for p := d.path; ; p = filepath.Dir(p) {
			id, err := fsutil.Stat(p, false)
			if err != nil {
				return false
			}
			if id.Exists {
				if id.Ctime == 0 || id.Recent(start, RacyWindow) {
					return false
				}
				break
			}
			if filepath.Dir(p) == p {
				return false
			}
		}
	}
	return true
}

// run runs the helpers. The listing does not wait for the others. Where
// a .git is on the way up, ls-files runs beside rev-parse, from dir with
// the whole tree as its pathspec (":/"), and counts only if rev-parse
// finds a working tree: a fresh check of a git command waits for one
// git instead of two in a row.
func (c *Cache) run(dir string, repoArgs, env []string) *Answers {
	a := &Answers{}
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		a.Config.Stdout, a.Config.Stderr, a.Config.Err = c.helper(dir, repoArgs, env, "config", "--list", "--show-origin", "--show-scope", "--includes", "-z")
	}()
	defer func() { <-listed }()
	var index Index
	var indexed chan struct{}
	if len(repoArgs) == 0 && dotGitAbove(dir) {
		indexed = make(chan struct{})
		go func() {
			defer close(indexed)
			index = c.listIndex(dir, repoArgs, env, ":/")
		}()
	}
	a.RevParse.Stdout, a.RevParse.Stderr, a.RevParse.Err = c.helper(dir, repoArgs, env, "rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-toplevel")
	repo, err := a.Repo(dir)
	if indexed != nil {
		<-indexed
	}
	if err != nil || repo == nil || repo.TopLevel == "" {
		return a
	}
	a.HasIndex = true
	if indexed != nil {
		a.Index = index
	} else {
		a.Index = c.listIndex(repo.TopLevel, repoArgs, env)
	}
	return a
}

// listIndex runs ls-files in dir for the index's gitlinks and the
// directories leading to its entries.
func (c *Cache) listIndex(dir string, repoArgs, env []string, pathspec ...string) Index {
	var index Index
	seen := map[string]bool{}
	args := []string{"ls-files", "--stage", "-z", "--full-name"}
	if len(pathspec) > 0 {
		args = append(append(args, "--"), pathspec...)
	}
	index.Err = c.helperStream(dir, repoArgs, env, func(entry string) {
		_, path, ok := strings.Cut(entry, "\t")
		if !ok {
			return
		}
		if strings.HasPrefix(entry, "160000 ") {
			index.Gitlinks = append(index.Gitlinks, path)
		}
		for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path[:i], '/') {
			d := path[:i]
			if seen[d] {
				break // and so were the ones above it
			}
			seen[d] = true
			index.Dirs = append(index.Dirs, d)
		}
	}, args...)
	return index
}

// dotGitAbove reports whether dir or a directory above it holds a .git.
func dotGitAbove(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// dependencies lists the files the answers depend on.
func (a *Answers) dependencies(dir string, repoArgs []string, prog string, env []string) *depList {
	l := &depList{}
	l.add(prog, false)
	if real, err := filepath.EvalSymlinks(prog); err == nil && real != prog {
		l.add(real, false) // a git upgraded behind a link
	}
	repo, err := a.Repo(dir)
	if err != nil {
		repo = nil
	}
	// Discovery goes up from dir and stops where it finds the
	// repository; without one, or with the repository named in
	// repoArgs, every level up to / counts.
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		l.add(d, true)
		found := len(repoArgs) == 0 && repo != nil && foundAt(d, repo)
		if found && d != repo.GitDir {
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
		for _, gd := range []string{repo.GitDir, repo.CommonDir} {
			l.add(gd, false)
			for _, name := range []string{"HEAD", "config", "config.worktree", "commondir", "gitdir", "index"} {
				l.add(filepath.Join(gd, name), false)
			}
		}
		if repo.TopLevel != "" {
			l.add(filepath.Join(repo.TopLevel, ".git"), false)
		}
	}
	// git names a file it found through discovery relative to the top of
	// the working tree, where it runs from.
	base := dir
	if repo != nil && repo.TopLevel != "" {
		base = repo.TopLevel
	}
	for _, e := range a.Entries() {
		file := e.File(base)
		switch {
		case file != "":
			l.add(file, false)
		case strings.HasPrefix(e.Origin, "command line:"):
			// From the environment, which is in the key.
		default:
			l.uncertain = true
		}
		if e.Includes() {
			if strings.Contains(e.Value, "%(") || strings.HasPrefix(e.Value, "~") && !strings.HasPrefix(e.Value, "~/") {
				l.uncertain = true // git resolves these in ways IncludeTarget does not
			}
			l.add(IncludeTarget(file, e.Value), false)
		}
		if strings.EqualFold(e.Key, "extensions.refstorage") && !strings.EqualFold(e.Value, "files") {
			l.uncertain = true // HEAD lives in the reftable
		}
	}
	return l
}

// foundAt reports whether discovery stopped at d for repo: d/.git is its
// git directory, or a .git file at the top of its working tree, or d is
// the git directory itself.
func foundAt(d string, repo *Repo) bool {
	dotGit := filepath.Join(d, ".git")
	if dotGit == repo.GitDir || d == repo.GitDir {
		return true
	}
	fi, err := os.Lstat(dotGit)
	return err == nil && fi.Mode().IsRegular() && d == repo.TopLevel
}

// Program is the git vtexec runs: the first on the trusted PATH.
func Program() (string, error) {
	if p, ok := plan.LookPath("git", plan.TrustedPath); ok {
		return p, nil
	}
	return "", errors.New("no git on the trusted PATH")
}

// command prepares git with the environment commands get (and C
// messages, which the inspection parses), in dir.
func command(ctx context.Context, dir string, repoArgs, env []string, args ...string) (*exec.Cmd, error) {
	prog, err := Program()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, prog, append(slices.Clone(repoArgs), args...)...)
	cmd.Dir = dir
	cmd.Env = slices.Clone(env)
	return cmd, nil
}

// helper runs git and returns its output.
func (c *Cache) helper(dir string, repoArgs, env []string, args ...string) ([]byte, string, error) {
	c.runs.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), helperTimeout)
	defer cancel()
	cmd, err := command(ctx, dir, repoArgs, env, args...)
	if err != nil {
		return nil, "", err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return stdout.Bytes(), stderr.String(), err
}

// helperStream runs git and hands each NUL-terminated record of its
// output to fn.
func (c *Cache) helperStream(dir string, repoArgs, env []string, fn func(string), args ...string) error {
	c.runs.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), helperTimeout)
	defer cancel()
	cmd, err := command(ctx, dir, repoArgs, env, args...)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	r := bufio.NewReader(out)
	for {
		rec, err := r.ReadString(0)
		if rec = strings.TrimSuffix(rec, "\x00"); rec != "" {
			fn(rec)
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		return errors.New(FirstLine(strings.TrimSpace(stderr.String())) + " (" + err.Error() + ")")
	}
	return nil
}
