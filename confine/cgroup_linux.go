//go:build linux

package confine

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RLIMIT_NPROC does not bind root, so a box run as root bounds its
// process count with a pids cgroup: each process is put in it as it
// starts, and what it forks stays in it. There is one per workspace, made
// once and kept (an empty cgroup costs nothing, while making and
// removing one per run waits for the kernel to retire it, often ms): the
// bound holds for all the workspace's commands running at once.

// Group bounds the processes of one run. A nil *Group groups nothing.
//
// A process joins it just after it has started, while the run goes on:
// moving a process between v1 cgroups waits for an RCU grace period
// (5–10 ms here) unless another move just happened, which would double a
// short command's time. The thread that started the process moves it
// before it reaps it, so the pid is still the process's own. What it
// forks before it has joined is not counted; the PID namespace and the
// timeout still end those.
type Group struct{ cg *pidsCgroup }

func (g *Group) add(pid int) {
	if g != nil {
		g.cg.add(pid)
	}
}

// Close lets the group go; the cgroup, and the box's descriptor of it,
// stay for the box's next run. Call it once the run's processes have
// been waited for.
func (g *Group) Close() {}

// pidsCgroup is a box's pids cgroup. procs is its cgroup.procs, opened
// before any thread restricts itself: a thread that has cannot open it.
type pidsCgroup struct {
	dir   string
	procs *os.File
}

// newPidsCgroup makes a pids cgroup below vtexec's own, allowing max
// processes. It uses the v1 pids hierarchy, or v2 where pids is enabled
// for vtexec's cgroup's children.
func newPidsCgroup(max uint64, name string) (*pidsCgroup, error) {
	parent, err := ownPidsCgroup()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(name))
	dir := filepath.Join(parent, "vtexec-"+hex.EncodeToString(sum[:8]))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max, 10)), 0o644); err != nil {
		return nil, err
	}
	procs, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	return &pidsCgroup{dir: dir, procs: procs}, nil
}

// ownPidsCgroup is the directory of vtexec's cgroup in a hierarchy where
// pids can be limited.
func ownPidsCgroup() (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
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
			if c == "pids" {
				return filepath.Join("/sys/fs/cgroup/pids", parts[2]), nil
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = filepath.Join("/sys/fs/cgroup", parts[2])
		}
	}
	if v2 != "" {
		if ctl, err := os.ReadFile(filepath.Join(v2, "cgroup.subtree_control")); err == nil && strings.Contains(string(ctl), "pids") {
			return v2, nil
		}
	}
	return "", errors.New("no pids cgroup controller for vtexec's cgroup")
}

// add puts a started process in the cgroup.
func (c *pidsCgroup) add(pid int) error {
	if c == nil {
		return nil
	}
	if _, err := c.procs.Write([]byte(strconv.Itoa(pid))); err != nil {
		return fmt.Errorf("confine: pids cgroup: %w", err)
	}
	return nil
}
