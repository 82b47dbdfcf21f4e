//go:build linux

package confine

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// RLIMIT_NPROC does not bind root, so a box run as root bounds its
// process count with a pids cgroup. There is one per workspace, made once
// and kept (an empty cgroup costs nothing, while making and removing one
// per run waits for the kernel to retire it, often ms): the bound holds
// for all the workspace's commands running at once.
//
// A program is born in the cgroup, so the bound holds from its first
// instruction. With cgroup v1 the thread that starts it joins first:
// moving the calling thread alone (writing 0 to "tasks") takes no global
// lock, while moving a whole process waits for an RCU grace period
// (5–10 ms here) unless another move just happened. Once the program has
// started, the thread moves back to vtexec's cgroup: a locked thread
// usually ends with its goroutine, but Go never ends the main thread, so
// a run on it would leave it in the cgroup for good. Go starts new
// threads from a template thread, never from a locked one, so nothing
// else of vtexec's joins. With cgroup v2 the program is cloned into it
// (CLONE_INTO_CGROUP) and no thread moves.

// Group bounds the processes of one run: their count (cg) and, where a
// memory cgroup could be made, their memory (mem). A nil *Group groups
// nothing.
type Group struct{ cg, mem *pidsCgroup }

// join prepares the calling, locked thread to start cmd inside the
// group.
func (g *Group) join(cmd *exec.Cmd) error {
	if g == nil {
		return nil
	}
	if g.cg != nil {
		if err := g.cg.join(cmd); err != nil {
			return fmt.Errorf("confine: join the pids cgroup: %w", err)
		}
	}
	if g.mem != nil {
		if err := g.mem.join(cmd); err != nil {
			return fmt.Errorf("confine: join the memory cgroup: %w", err)
		}
	}
	return nil
}

// leave moves the calling thread, which joined the group to start a
// program, back to vtexec's own cgroup. Best effort: a thread that stays
// is in the cgroup until it ends.
func (g *Group) leave() {
	if g == nil {
		return
	}
	if g.cg != nil {
		g.cg.leave()
	}
	if g.mem != nil {
		g.mem.leave()
	}
}

// OOMKills is how many processes the kernel has killed in the group's
// memory cgroup for want of memory, since it was made; -1 without one.
// A run compares the count before and after it.
func (g *Group) OOMKills() int {
	if g == nil || g.mem == nil {
		return -1
	}
	// Under the lock: join may make the cgroup again, another vtexec
	// having removed it, and open its events file anew.
	g.mem.mu.Lock()
	var buf [512]byte
	read := func() (int, error) {
		if g.mem.events == nil {
			return 0, os.ErrNotExist
		}
		n, err := g.mem.events.ReadAt(buf[:], 0)
		if n > 0 && err == io.EOF {
			err = nil
		}
		return n, err
	}
	n, err := read()
	if err != nil && g.mem.fd != nil && g.mem.open() == nil {
		// Removed since (as stale, by another vtexec): made again now,
		// as the run's start would, so that its count starts here.
		n, err = read()
	}
	g.mem.mu.Unlock()
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return -1
}

// Close lets the group go; the cgroup, and the box's descriptor of it,
// stay for the box's next run. Call it once the run's processes have
// been waited for.
func (g *Group) Close() {}

// pidsCgroup is a box's pids cgroup. fd is its v1 "tasks" file, or its
// v2 directory, and home (v1) the "tasks" file of vtexec's own cgroup,
// opened before any thread restricts itself: a thread that has cannot
// open them.
type pidsCgroup struct {
	ctl  string // the controller: "pids" or "memory"
	max  uint64
	name string // the workspace

	mu   sync.Mutex
	dir  string
	v2   bool
	fd   *os.File
	home *os.File
	// events is a memory cgroup's count of OOM kills (see OOMKills),
	// kept open: it is read before and after every run.
	events *os.File
}

// staleAfter is how long a workspace's cgroup may go unmade before
// another vtexec may remove it while empty; a vtexec still holding it
// makes it again when it next starts a program.
const staleAfter = 10 * time.Minute

// newPidsCgroup makes (or finds) the pids cgroup of the workspace name
// below vtexec's own, allowing max processes. It uses the v1 pids
// hierarchy, or v2 where pids is enabled for vtexec's cgroup's children.
func newPidsCgroup(max uint64, name string) (*pidsCgroup, error) {
	return newCgroup("pids", max, name)
}

// newMemoryCgroup makes (or finds) the memory cgroup of the workspace
// name, bounding its processes' memory together to max bytes.
func newMemoryCgroup(max uint64, name string) (*pidsCgroup, error) {
	return newCgroup("memory", max, name)
}

// newCgroup makes (or finds) the workspace's cgroup of controller ctl
// with the bound max.
func newCgroup(ctl string, max uint64, name string) (*pidsCgroup, error) {
	c := &pidsCgroup{ctl: ctl, max: max, name: name}
	if err := c.open(); err != nil {
		return nil, err
	}
	return c, nil
}

// open makes the cgroup if it is not there, sets its bound and opens it.
// Having made it, it removes up to 16 stale ones of other workspaces,
// so that they do not pile up.
func (c *pidsCgroup) open() error {
	parent, v2, err := ownCgroup(c.ctl)
	if err != nil {
		return err
	}
	dir := cgroupDir(parent, c.name)
	made := true
	if err := os.Mkdir(dir, 0o755); errors.Is(err, os.ErrExist) {
		made = false
	} else if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, c.limitFile(v2)), []byte(strconv.FormatUint(c.max, 10)), 0o644); err != nil {
		return err
	}
	var fd, home *os.File
	if v2 {
		fd, err = os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	} else {
		fd, err = os.OpenFile(filepath.Join(dir, "tasks"), os.O_WRONLY, 0)
		if err == nil {
			if home, err = os.OpenFile(filepath.Join(parent, "tasks"), os.O_WRONLY, 0); err != nil {
				fd.Close()
			}
		}
	}
	if err != nil {
		return err
	}
	var events *os.File
	if c.ctl == "memory" {
		name := "memory.oom_control" // v1: "oom_kill N"
		if v2 {
			name = "memory.events"
		}
		events, _ = os.Open(filepath.Join(dir, name)) // nil: OOMKills says -1
	}
	c.closeFiles()
	c.dir, c.v2, c.fd, c.home, c.events = dir, v2, fd, home, events
	if made && (atHierarchyRoot(parent) || rand.IntN(8) == 0) {
		// A cgroup inside the caller's is made for every run (and
		// removed after it): what a killed vtexec left there is
		// cleared now and then, not each time.
		removeStale(parent, dir, 16)
	}
	return nil
}

// cgroupDir is the directory of the cgroup of the workspace name in the
// cgroup parent.
func cgroupDir(parent, name string) string {
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(parent, "vtexec-"+hex.EncodeToString(sum[:8]))
}

// join makes cmd start in the cgroup: with v1 by moving the calling
// thread into it, with v2 by cloning cmd into it. A cgroup another
// vtexec removed as stale is made again.
func (c *pidsCgroup) join(cmd *exec.Cmd) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd == nil {
		return errors.New("the box is closed")
	}
	for retried := false; ; retried = true {
		var err error
		if c.v2 {
			err = unix.Faccessat(int(c.fd.Fd()), c.limitFile(true), unix.F_OK, 0)
		} else {
			_, err = c.fd.Write([]byte("0"))
		}
		if err == nil {
			break
		}
		if retried || !(errors.Is(err, unix.ENODEV) || errors.Is(err, unix.ENOENT)) {
			return err
		}
		if err := c.open(); err != nil {
			return err
		}
	}
	if c.v2 {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(c.fd.Fd())
	}
	return nil
}

// limitFile is the file that holds the cgroup's bound.
func (c *pidsCgroup) limitFile(v2 bool) string {
	switch {
	case c.ctl == "memory" && v2:
		return "memory.max"
	case c.ctl == "memory":
		return "memory.limit_in_bytes"
	}
	return "pids.max"
}

// leave moves the calling thread back to vtexec's cgroup (v1).
func (c *pidsCgroup) leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.home != nil {
		c.home.Write([]byte("0"))
	}
}

// close closes the cgroup's descriptors and, with remove, when it lies
// in the caller's cgroup, removes it if it is empty: left behind, it
// would keep the caller's (a session, a service) from being removed when
// that ends. One that still holds a process stays; a vtexec of the
// workspace that starts a program later makes it again.
func (c *pidsCgroup) close(remove bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeFiles()
	if remove && c.dir != "" && !atHierarchyRoot(filepath.Dir(c.dir)) {
		_ = unix.Rmdir(c.dir)
	}
}

// atHierarchyRoot reports whether the cgroup directory dir is the root
// of its hierarchy, where a workspace's cgroup blocks no one's removal:
// it is kept there for the next run.
func atHierarchyRoot(dir string) bool {
	return dir == "/sys/fs/cgroup" || filepath.Dir(dir) == "/sys/fs/cgroup"
}

func (c *pidsCgroup) closeFiles() {
	for _, f := range []*os.File{c.fd, c.home, c.events} {
		if f != nil {
			f.Close()
		}
	}
	c.fd, c.home, c.events = nil, nil, nil
}

// removeStale removes up to n empty cgroups of other workspaces in
// parent, made more than staleAfter ago, looking at up to maxStaleScan
// entries. The kernel refuses to remove one that holds a process.
func removeStale(parent, own string, n int) {
	// A box removes its own cgroups when it closes, so what is stale was
	// left by a vtexec that was killed (or, at the hierarchy's root, by a
	// workspace not used since), and each vtexec that makes a cgroup
	// clears a few. The whole directory is looked at: cgroupfs lists the
	// newest entries first, so the first ones are never stale.
	dir, err := os.Open(parent)
	if err != nil {
		return
	}
	defer dir.Close()
	for scanned := 0; n > 0 && scanned < maxStaleScan; {
		entries, err := dir.ReadDir(256)
		scanned += len(entries)
		for _, e := range entries {
			if n == 0 {
				return
			}
			dir := filepath.Join(parent, e.Name())
			if !e.IsDir() || !strings.HasPrefix(e.Name(), "vtexec-") || dir == own {
				continue
			}
			if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < staleAfter {
				continue
			}
			if unix.Rmdir(dir) == nil {
				n--
			}
		}
		if err != nil {
			return
		}
	}
}

// maxStaleScan bounds the entries one removeStale looks at.
const maxStaleScan = 1 << 16

// pidsHierarchy is where the cgroup v1 pids hierarchy is mounted; tests
// point it at a place where no cgroup can be made.
var pidsHierarchy = "/sys/fs/cgroup/pids"

// ownPidsCgroup is the directory of vtexec's cgroup in a hierarchy where
// pids can be limited, and whether that is cgroup v2.
func ownPidsCgroup() (string, bool, error) { return ownCgroup("pids") }

// ownCgroup is the directory of vtexec's cgroup in a hierarchy where the
// controller ctl can be used, and whether that is cgroup v2.
func ownCgroup(ctl string) (string, bool, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var v2 string
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == ctl {
				hierarchy := pidsHierarchy
				if ctl != "pids" {
					hierarchy = filepath.Join(filepath.Dir(pidsHierarchy), ctl)
				}
				return filepath.Join(hierarchy, parts[2]), false, nil
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = filepath.Join("/sys/fs/cgroup", parts[2])
		}
	}
	if v2 != "" {
		if ctl2, err := os.ReadFile(filepath.Join(v2, "cgroup.subtree_control")); err == nil && strings.Contains(string(ctl2), ctl) {
			return v2, true, nil
		}
	}
	return "", false, fmt.Errorf("no %s cgroup controller for vtexec's cgroup", ctl)
}
