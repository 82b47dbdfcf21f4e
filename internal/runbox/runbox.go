// Package runbox is the box of one run: the kernel box (package confine)
// set up from the workspace, its policy and the checked plan, with the
// run's private HOME and TMPDIR (new for the run, removed after it), the
// workspace's caches, the tool presets a plan's programs get, and what a
// run left under a name that outlives it, moved away.
package runbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/early"
	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/plan"
)

// CodeOutOfMemory warns of a command the kernel killed for exceeding the
// memory bound.
const CodeOutOfMemory = codes.OutOfMemory

// CodeConfinementUnavailable is the code of a run refused because the
// confinement it requires cannot be applied here.
const CodeConfinementUnavailable = codes.ConfinementUnavailable

// CodeNetworkUnavailable is the code of a run refused because a command
// a person granted the network could only get it in the host's network
// namespace: slirp4netns, which gives it a namespace of its own, is not
// installed.
const CodeNetworkUnavailable = codes.NetworkUnavailable

// Box is the kernel box of one run and the private directories its
// programs get as HOME and TMPDIR, new for the run, and as their caches,
// kept per workspace.
type Box struct {
	*confine.Box
	home, tmp string
	runs      string   // the workspace's directory of runs' HOME and TMPDIR
	pipes     string   // the workspace's directory of process substitutions' pipes
	cache     string   // the workspace's caches (XDG_CACHE_HOME)
	gitDirs   []string // the workspace's git directories
	// unprotected are the protected names missing when the box opened,
	// and why each matters: what a run makes there is disarmed.
	unprotected map[string]string
	extraEnv    []string // cache locations and tool presets
	cleanup     func()
	release     func() // gives a cached box back; nil for one of its own
}

// Options describe the box of a run.
type Options struct {
	Root    string // the workspace's real root
	Mode    confine.Mode
	Policy  *execpolicy.Policy // limits, roots, protected names, placeholders
	Plan    *plan.Plan         // the checked plan; its commands' network grants are set here
	Network map[int]bool       // the commands (by index in plan order) a person's rule granted the network
	Early   *EarlyDirs         // run directories made while the request was checked, or nil
	Cache   *Cache             // the boxes kept between requests
	// ExtraPath are the user's toolchain directories on the trusted
	// PATH: read and run, never written, in the box.
	ExtraPath []string
}

// Refusal is a box that cannot be given: the run is refused with Code.
type Refusal struct{ Code, Reason, Hint string }

func (r *Refusal) Error() string { return r.Code + ": " + r.Reason }

// Open prepares the box a run's programs run in: read-write on the
// workspace, the read-write roots and a private HOME and TMPDIR;
// read-only on the read-only roots; nothing of the user's home.
func Open(o Options) (*Box, error) {
	b := &Box{cleanup: func() {}}
	// The private HOME and TMPDIR are the command's whatever the
	// confinement, and new for every run: the check inspects git with no
	// user configuration, and the command must see the same, not what an
	// earlier run wrote there.
	dirs, ok, err := o.Early.take(o.Root)
	if !ok {
		o.Early.Discard()
		dirs, err = makeRunDirs(o.Root)
	}
	if err != nil {
		return nil, &Refusal{Code: codes.BadState, Reason: "private directories for the command: " + err.Error(),
			Hint: "make the system's temporary directory writable, or set TMPDIR to one that is"}
	}
	b.home, b.tmp, b.runs, b.cache, b.pipes, b.cleanup = dirs.home, dirs.tmp, dirs.runs, dirs.cache, dirs.pipes, dirs.remove
	b.extraEnv = cacheEnv(b.cache)
	grantNetwork(o.Plan, o.Network)
	if o.Plan.Any(func(c plan.Cmd) bool { return c.Git }) {
		writeGitIdentity(b.home)
	}
	if o.Mode == confine.ModeOff {
		b.Box, _ = confine.Open(confine.Spec{}, o.Mode)
		return b, nil
	}
	pol := o.Policy
	lim := pol.Limits
	spec := confine.Spec{
		ReadWrite: []string{o.Root, b.runs, b.cache},
		Limits:    confine.Limits{FileSize: lim.FileSize, OpenFiles: lim.OpenFiles, Processes: lim.Processes, CPUTime: lim.CPUTime, Memory: lim.Memory},
	}
	spec.Protected, spec.GitDirs = protectedPaths(o.Root, pol.Protect)
	b.gitDirs = spec.GitDirs
	spec.Placeholders = pol.Placeholders
	spec.PlaceholderFiles = pol.PlaceholderFiles
	spec.Seatbelt = pol.Seatbelt
	b.extraEnv = append(b.extraEnv, toolPresets(o.Plan, &spec)...)
	spec.ReadOnly = append(spec.ReadOnly, o.ExtraPath...)
	spec.ReadOnly = append(spec.ReadOnly, b.pipes)
	for _, r := range pol.Roots {
		if r.Access == "read-write" {
			spec.ReadWrite = append(spec.ReadWrite, r.Path)
		} else {
			spec.ReadOnly = append(spec.ReadOnly, r.Path)
		}
	}
	cb, release, err := o.Cache.open(spec, o.Mode)
	if err != nil {
		b.cleanup()
		if errors.Is(err, confine.ErrUnsupported) {
			return nil, &Refusal{Code: CodeConfinementUnavailable, Reason: err.Error(),
				Hint: `run on a Linux kernel with Landlock (5.13 or later), or set confinement = "best-effort" in the policy (or --confinement best-effort) to run with what this kernel offers`}
		}
		return nil, &Refusal{Code: CodeConfinementUnavailable, Reason: err.Error(), Hint: "check that the workspace and the policy's roots exist"}
	}
	b.Box, b.release = cb, release
	if o.Plan.Any(func(c plan.Cmd) bool { return c.Network }) && !cb.CanGrantNetwork() {
		b.cleanup()
		release()
		return nil, &Refusal{Code: CodeNetworkUnavailable, Reason: "a command here was granted the network, and vtexec gives a granted command the network only in a network namespace of its own, through slirp4netns, which is not installed",
			Hint: "install slirp4netns (Debian and Ubuntu: apt install slirp4netns), or run the command without the network"}
	}
	// After the box made its placeholders: those are not missing.
	b.unprotected = missingProtected(o.Root, spec, o.Plan.Any(approvedGitWrite))
	return b, nil
}

// PipeDir makes a directory of the run's own for the named pipes of
// process substitutions, which the box's programs may read and not
// change; remove removes it and what is in it.
func (b *Box) PipeDir() (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp(b.pipes, "")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { removeTree(dir) }, nil
}

// GitDirs are the workspace's git directories.
func (b *Box) GitDirs() []string { return b.gitDirs }

// Unprotected are the protected names missing when the box opened, and
// why each matters.
func (b *Box) Unprotected() map[string]string { return b.unprotected }

// ExtraEnv is the environment the box adds for its programs: cache
// locations and tool presets.
func (b *Box) ExtraEnv() []string { return b.extraEnv }

// ReportFor is the box's report for this run.
func (b *Box) ReportFor(p *plan.Plan) confine.Report {
	r := b.Report()
	if p != nil {
		for _, c := range p.Commands() {
			if c.Network {
				r.NetworkGranted = append(r.NetworkGranted, filepath.Base(c.Argv[0]))
			}
		}
	}
	return r
}

// Cache keeps the boxes of a long-lived engine, so a request whose box
// would be the same (the same spec and mode, the same files at the paths
// it protects and binds) reuses its Landlock ruleset and mount
// namespaces instead of building them again.
type Cache struct {
	mu sync.Mutex
	m  map[string]*cachedBox
}

type cachedBox struct {
	box     *confine.Box
	root    string // the workspace, whose name its cgroups have
	refs    int
	evicted bool
}

const boxCacheSize = 16

// CloseAll closes every cached box; those still in use close when
// released.
func (c *Cache) CloseAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		e.evicted = true
		if e.refs == 0 {
			e.box.CloseLast()
		}
		delete(c.m, k)
	}
}

// open returns a box for spec, and the function that releases it.
func (c *Cache) open(spec confine.Spec, mode confine.Mode) (*confine.Box, func(), error) {
	c.mu.Lock()
	empty := len(c.m) == 0
	c.mu.Unlock()
	// The key stats every path the box binds or protects, and Open makes
	// it again: a process's first box (every fresh run's only one) has
	// nothing to find.
	if !empty {
		key := confine.SpecKey(spec, mode)
		c.mu.Lock()
		if e := c.m[key]; e != nil {
			e.refs++
			c.mu.Unlock()
			return e.box, c.releaser(e), nil
		}
		c.mu.Unlock()
	}
	b, err := confine.Open(spec, mode)
	if err != nil {
		return nil, nil, err
	}
	e := &cachedBox{box: b, refs: 1}
	if len(spec.ReadWrite) > 0 {
		e.root = spec.ReadWrite[0]
	}
	key := b.Key() // placeholders may have been made
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= boxCacheSize {
		for k, old := range c.m {
			old.evicted = true
			delete(c.m, k)
			if old.refs == 0 {
				c.closeEvicted(old)
			}
		}
		if c.m == nil {
			c.m = map[string]*cachedBox{}
		}
	}
	if _, taken := c.m[key]; taken {
		e.evicted = true // another request made the same box meanwhile
	} else {
		c.m[key] = e
	}
	return b, c.releaser(e), nil
}

// closeEvicted closes a box no longer cached; with c.mu held. Its
// workspace's cgroups go with it unless a box still cached shares them
// (they are named by the workspace): one left in the caller's cgroup
// keeps the caller's from being removed.
func (c *Cache) closeEvicted(e *cachedBox) {
	for _, other := range c.m {
		if other != e && other.root == e.root {
			e.box.Close()
			return
		}
	}
	e.box.CloseLast()
}

func (c *Cache) releaser(e *cachedBox) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			e.refs--
			if e.refs == 0 && e.evicted {
				c.closeEvicted(e)
			}
		})
	}
}

// protectedPaths returns the protected names of a workspace root and its
// git directory (a .git file, as in a worktree, is protected like a name).
func protectedPaths(root string, more []string) ([]confine.Protected, []string) {
	var prot []confine.Protected
	for _, n := range ProtectedNames(more) {
		name, dir := strings.CutSuffix(n, "/")
		prot = append(prot, confine.Protected{Path: filepath.Join(root, name), Dir: dir})
	}
	git := filepath.Join(root, ".git")
	fi, err := os.Lstat(git)
	switch {
	case err != nil:
		return prot, nil
	case fi.IsDir():
		return prot, []string{git}
	}
	prot = append(prot, confine.Protected{Path: git})
	// A .git file names the git directory git uses (a worktree, a
	// submodule, --separate-git-dir); in the workspace, it is protected
	// as a .git directory is.
	if dir := gitFileDir(root, git); dir != "" {
		return prot, []string{dir}
	}
	return prot, nil
}

// gitFileDir is the git directory a .git file names, if it is a real
// directory inside root (its links resolved), else "".
func gitFileDir(root, gitFile string) string {
	data, _, err := fsutil.ReadRegular(gitFile, 4096, false)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || real == root || !strings.HasPrefix(real, root+"/") {
		return ""
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return ""
	}
	return real
}

// WatchPlants disarms, while the run goes on, what it makes under a
// protected name at the workspace root, moving it into quarantine (see
// confine.PlantWatch).
func (b *Box) WatchPlants(root, quarantine string) *confine.PlantWatch {
	if len(b.unprotected) == 0 {
		return nil
	}
	return confine.WatchPlants(root, b.unprotected, quarantine)
}

// missingProtected are the protected names of spec, and the workspace's
// .git, that do not exist now and have no placeholder: what a run makes
// there is moved away after it. The value says why the name matters.
func missingProtected(root string, spec confine.Spec, initsGit bool) map[string]string {
	out := map[string]string{}
	for _, p := range spec.Protected {
		if _, err := os.Lstat(p.Path); err != nil {
			out[p.Path] = "a protected name: " + whyProtected(filepath.Base(p.Path))
		}
	}
	if len(spec.GitDirs) == 0 && !initsGit {
		git := filepath.Join(root, ".git")
		if _, err := os.Lstat(git); err != nil {
			out[git] = "a .git where the workspace had none, made by a command no person approved as one that writes a repository: git, editors and the person's shell prompt would run git with its configuration and hooks"
		}
	}
	return out
}

// approvedGitWrite reports whether c runs git in a way a person had to
// approve (git init, git clone: they make the workspace's .git); only
// such a run may leave a .git where there was none.
func approvedGitWrite(c plan.Cmd) bool { return c.Git && len(c.Asks) > 0 }

// whyProtected says what reads a protected name.
func whyProtected(name string) string {
	switch name {
	case ".envrc":
		return "direnv runs it when a shell enters the directory"
	case ".gitattributes":
		return "it picks the filter and diff programs git runs"
	case ".mcp.json":
		return "agents start the MCP servers it names"
	case ".vtexec":
		return "vtexec's own policy"
	}
	return "agents and editors read their settings, hooks and tasks from it"
}

// Disarm moves into quarantine each of absent (files that steer git,
// missing before the run) and each protected name missing before it that
// the run made; during are those the watch moved already. It returns
// them all.
func (b *Box) Disarm(quarantine string, during []confine.Disarmed, absent []string) []confine.Disarmed {
	if len(during) == 0 && len(absent) == 0 && len(b.unprotected) == 0 {
		return nil
	}
	out := append(during, confine.Disarm(absent, quarantine, "it tells git where to take its configuration and hooks from, and git itself never makes it here")...)
	for p, why := range b.unprotected {
		out = append(out, confine.Disarm([]string{p}, quarantine, why)...)
	}
	return out
}

// Environ is vtexec's environment with HOME and TMPDIR pointing into the
// box; the runner keeps only the variables it allows from it.
func (b *Box) Environ() []string {
	env := os.Environ()
	if b.home == "" {
		return env
	}
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+b.home, "TMPDIR="+b.tmp)
}

// Close gives the box back (or closes one of its own) and removes the
// run's directories, off the caller's path (see Wait).
func (b *Box) Close() {
	if b == nil {
		return
	}
	if b.release != nil {
		b.release()
	} else if b.Box != nil {
		b.Box.Close()
	}
	removeLater(b.cleanup)
}

// CodeDiskFull warns that a file system the command writes was full after
// it ran.
const CodeDiskFull = codes.DiskFull

// WritablePlace is a place a run writes, and how to name it.
type WritablePlace struct{ Path, What string }

// Writable are the places the run writes: the workspace, and its
// private TMPDIR (where HOME is).
func (b *Box) Writable(root string) []WritablePlace {
	out := []WritablePlace{{root, "the workspace"}}
	if b.tmp != "" {
		out = append(out, WritablePlace{b.tmp, "the command's TMPDIR and HOME"})
	}
	return out
}

// removals are the run directories being removed once their run has
// ended (its processes are gone with its PID namespace): off the
// answer's path, since removing a directory costs a journal write on
// many file systems. Wait waits for them.
var removals sync.WaitGroup

// Wait returns once every run directory being removed is gone.
func Wait() { removals.Wait() }

func removeLater(remove func()) {
	removals.Add(1)
	go func() {
		defer removals.Done()
		remove()
	}()
}

// runDirs are a run's private HOME and TMPDIR, new and empty, removed
// when the run ends, under the workspace's directory of runs; and the
// workspace's cache directory, kept between runs (within maxCache).
type runDirs struct {
	root                   string // the workspace they are for
	runs, cache, home, tmp string
	// pipes is where the interpreter makes the named pipes of process
	// substitutions: read-only in the box, so no program swaps one for
	// a link between vtexec making it and opening it.
	pipes  string
	remove func()
}

// makeRunDirs makes the run directories of the workspace at root.
//
// Runs' directories have short names: programs make Unix sockets in
// TMPDIR (Python's multiprocessing managers, ssh-agent, tmux), and a
// socket's path holds at most 107 bytes, of which multiprocessing adds
// 32. TMPDIR is BASE/r-HASH/RUN/tmp, about 50 bytes under /dev/shm.
func makeRunDirs(root string) (*runDirs, error) {
	base, err := privateBase()
	if err != nil {
		return nil, err
	}
	name := workspaceDirName(root)
	dir := filepath.Join(base, name)
	runsBase := base
	if mem := memoryBase(); mem != "" {
		runsBase = mem
	}
	// The pipes are not under runsBase: the box's own /dev/shm is
	// writable, and so would be what is bound beneath it.
	d := &runDirs{root: root, runs: filepath.Join(runsBase, runsDirName(name)), cache: filepath.Join(dir, "cache"),
		pipes: filepath.Join(dir, "pipes")}
	// The run holds the workspace's directory: no sweep removes it
	// meanwhile (see sweepWorkspaces).
	release, err := holdWorkspaceDir(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{d.runs, d.cache, d.pipes} {
		if err := fsutil.OwnDir(p); err != nil {
			release()
			return nil, err
		}
	}
	tidy(root, dir, runsBase, d.runs, d.cache, d.pipes)
	run, err := makeRun(d.runs)
	if err != nil {
		release()
		return nil, err
	}
	// HOME is the run's directory, TMPDIR a directory in it.
	d.home, d.tmp = run, filepath.Join(run, "tmp")
	if err := os.Mkdir(d.tmp, 0o700); err != nil {
		removeTree(run)
		release()
		return nil, err
	}
	// The run holds its directory while it lasts: a sweep of what killed
	// runs left (sweepRuns) leaves a run of more than a day alone.
	hold := func() {}
	if h, err := fsutil.ShareDir(run); err == nil {
		hold = h
	}
	d.remove = func() {
		// Most runs leave both empty: two removals, else the whole tree.
		if os.Remove(d.tmp) != nil || os.Remove(run) != nil {
			removeTree(run)
		}
		hold()
		release()
	}
	return d, nil
}

// makeRun makes a run's directory in runs, and runs again if a sweep
// removed it meanwhile (it removes only an empty one: see runsIdleAfter).
func makeRun(runs string) (string, error) {
	for try := 0; ; try++ {
		run, err := os.MkdirTemp(runs, "")
		if err == nil || !errors.Is(err, fs.ErrNotExist) || try == 2 {
			return run, err
		}
		if err := fsutil.OwnDir(runs); err != nil {
			return "", err
		}
	}
}

// holdWorkspaceDir makes the workspace's directory dir if need be and
// holds it until release; made again if a sweep moved it away meanwhile.
func holdWorkspaceDir(dir string) (release func(), err error) {
	for try := 0; ; try++ {
		if err := fsutil.OwnDir(dir); err != nil {
			return nil, err
		}
		release, err := fsutil.ShareDir(dir)
		if err == nil || !errors.Is(err, fsutil.ErrMoved) || try == 2 {
			return release, err
		}
	}
}

// EarlyDirs makes the run directories of the workspace at root while
// the request is checked (a directory costs a journal write on many file
// systems); the box takes them if the run goes ahead in that workspace,
// and they are removed otherwise. A box that wants them before the
// background began makes them itself.
type EarlyDirs struct {
	root  string
	work  *early.Work[madeDirs]
	taken bool
}

// madeDirs are makeRunDirs' answer.
type madeDirs struct {
	dirs *runDirs
	err  error
}

// StartDirs starts making the run directories of the workspace at root.
func StartDirs(root string) *EarlyDirs {
	return &EarlyDirs{root: root, work: early.Start(func() madeDirs {
		dirs, err := makeRunDirs(root)
		return madeDirs{dirs, err}
	})}
}

// take returns the directories if they are for root.
func (e *EarlyDirs) take(root string) (*runDirs, bool, error) {
	if e == nil || e.root != root {
		return nil, false, nil
	}
	e.taken = true
	m := e.work.Get()
	return m.dirs, true, m.err
}

// Discard removes the directories unless a box took them; not begun
// yet, they are never made.
func (e *EarlyDirs) Discard() {
	if e == nil || e.taken {
		return
	}
	e.taken = true
	removeLater(func() {
		if m, begun := e.work.Begun(); begun && m.dirs != nil {
			m.dirs.remove()
		}
	})
}

// cacheEnv points the caches programs keep (Go's build cache, npm's and
// pip's downloads, XDG_CACHE_HOME) into the workspace's cache directory:
// data that may be reused, not configuration.
func cacheEnv(cache string) []string {
	return []string{"XDG_CACHE_HOME=" + cache, "GOCACHE=" + filepath.Join(cache, "go-build"),
		"npm_config_cache=" + filepath.Join(cache, "npm"), "PIP_CACHE_DIR=" + filepath.Join(cache, "pip")}
}

// maxCache bounds a workspace's cache directory; over it the cache is
// emptied. It is measured at most every cacheCheckEvery.
const (
	maxCache        = 4 << 30
	cacheCheckEvery = 10 * time.Minute
	staleRun        = 24 * time.Hour
)

// tidy, at most every cacheCheckEvery (the time is kept in
// dir/cache.checked, usedStamp), removes what a killed vtexec left in runs (see
// sweepRuns) and the HOME and TMPDIR earlier versions kept in dir,
// empties cache when it has grown over maxCache, records the workspace's
// root in dir, and sweeps the directories of other workspaces (see
// sweepWorkspaces).
func tidy(root, dir, runsBase, runs, cache, pipes string) {
	stamp := filepath.Join(dir, usedStamp)
	if fi, err := os.Lstat(stamp); err == nil && time.Since(fi.ModTime()) < cacheCheckEvery {
		return
	}
	if f, err := os.Create(stamp); err == nil {
		f.Close()
	}
	recordRoot(dir, root)
	sweepLater(filepath.Dir(dir), runsBase, dir, runs)
	sweepRuns(runs)
	sweepRuns(pipes)
	for _, old := range []string{"home", "tmp"} {
		if _, err := os.Lstat(filepath.Join(dir, old)); err == nil {
			removeTree(filepath.Join(dir, old))
		}
	}
	var size int64
	filepath.WalkDir(cache, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	if size > maxCache {
		removeTree(cache)
		fsutil.OwnDir(cache)
	}
}

// sweepRuns removes runs' directories left for more than staleRun (by a
// vtexec that was killed): those no run holds (see makeRunDirs).
func sweepRuns(runs string) {
	entries, err := os.ReadDir(runs)
	if err != nil {
		return
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) <= staleRun {
			continue
		}
		p := filepath.Join(runs, e.Name())
		if !e.IsDir() {
			removeTree(p)
			continue
		}
		if release, ok := fsutil.TakeDir(p); ok {
			removeTree(p)
			release()
		}
	}
}

// removeTree removes dir and everything in it, making directories a
// command left without write or search permission removable first. Links
// are removed, never followed.
func removeTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// privateBase is $TMPDIR/vtexec-UID, a directory only this user owns.
// memoryBase is where runs' HOME and TMPDIR are made when the machine
// has a file system in memory vtexec may use (see memoryFS), which makes
// and removes a directory without a journal write; "" otherwise, when
// they go under privateBase.
var memoryBase = sync.OnceValue(func() string {
	dir, ok := memoryFS()
	if !ok {
		return ""
	}
	base := filepath.Join(dir, "vtexec-"+strconv.Itoa(os.Geteuid()))
	if fsutil.OwnDir(base) != nil {
		return ""
	}
	return base
})

func privateBase() (string, error) {
	base := filepath.Join(os.TempDir(), "vtexec-"+strconv.Itoa(os.Geteuid()))
	return base, fsutil.OwnDir(base)
}

// KeeperDir is where the keepers of this user's workspaces' namespaces
// have their sockets (see confine.KeepNamespacesIn): in privateBase, as
// the machine's for this user, whatever the state directory.
func KeeperDir() (string, error) {
	base, err := privateBase()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "keep"), nil
}

// toolPresets give an approved toolchain what it needs without a lasting
// way out: for go, the user's module cache read-only (the build cache is
// the private HOME's, per workspace, so a poisoned entry can never reach
// the user's own builds), no toolchain switching and no proxy (a
// download needs a network rule; then GOPROXY is the user's). It
// returns the environment the preset sets.
func toolPresets(p *plan.Plan, spec *confine.Spec) []string {
	if p == nil {
		return nil
	}
	for _, c := range p.Commands() {
		if !c.GoToolchain {
			continue
		}
		env := []string{"GOTOOLCHAIN=local"}
		if !c.Network {
			env = append(env, "GOPROXY=off")
		} else if v := os.Getenv("GOPROXY"); v != "" {
			env = append(env, "GOPROXY="+v)
		}
		if mc := userModCache(); mc != "" {
			spec.ReadOnly = append(spec.ReadOnly, mc)
			env = append(env, "GOMODCACHE="+mc)
		}
		return env
	}
	return nil
}

// userModCache is the user's Go module cache, if it exists.
func userModCache() string {
	dir := os.Getenv("GOMODCACHE")
	if dir == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			if home, err := os.UserHomeDir(); err == nil {
				gopath = filepath.Join(home, "go")
			}
		}
		if first, _, _ := strings.Cut(gopath, ":"); first != "" {
			dir = filepath.Join(first, "pkg", "mod")
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !filepath.IsAbs(dir) {
		return ""
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return ""
}

// grantNetwork marks the plan's commands a person's network rule
// approved (by their index in plan order).
func grantNetwork(p *plan.Plan, granted map[int]bool) {
	if p == nil {
		return
	}
	i := 0
	for s := range p.Steps {
		cmds := p.Steps[s].Pipeline.Cmds
		for c := range cmds {
			cmds[c].Network = granted[i]
			i++
		}
	}
}

var (
	gitIdentityOnce sync.Once
	gitIdentity     []byte
)

// writeGitIdentity gives the private HOME a git configuration with the
// user's name and email, and nothing else of the user's configuration.
func writeGitIdentity(home string) {
	gitIdentityOnce.Do(func() {
		prog, ok := execpolicy.LookPath("git")
		if !ok {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, prog, "config", "--global", "--get-regexp", `^user\.(name|email)$`)
		cmd.Env = []string{"PATH=" + plan.TrustedPath, "HOME=" + os.Getenv("HOME"), "GIT_CONFIG_NOSYSTEM=1"}
		out, err := cmd.Output()
		if err != nil {
			return
		}
		var b bytes.Buffer
		b.WriteString("[user]\n")
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			key, value, ok := strings.Cut(line, " ")
			if !ok || strings.ContainsAny(value, "\n\"\\") {
				continue
			}
			fmt.Fprintf(&b, "\t%s = \"%s\"\n", strings.TrimPrefix(key, "user."), value)
		}
		gitIdentity = b.Bytes()
	})
	if gitIdentity != nil {
		// A replace, never a write through whatever a command left there.
		fsutil.WriteAtomicNoSync(filepath.Join(home, ".gitconfig"), gitIdentity, 0o600)
	}
}
