//go:build linux

package confine

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// RLIMIT_NPROC does not bind root, so a box run as root bounds its
// process count with a pids cgroup of its own: each process is put in it
// as it starts, and what it forks stays in it.

// Group bounds the processes of one run. A nil *Group groups nothing.
type Group struct{ cg *pidsCgroup }

func (g *Group) add(pid int) error {
	if g == nil {
		return nil
	}
	return g.cg.add(pid)
}

// Close removes the group once its processes are gone.
func (g *Group) Close() {
	if g != nil {
		g.cg.remove()
	}
}

// pidsCgroup is a box's pids cgroup. procs is its cgroup.procs, opened
// before any thread restricts itself: a thread that has cannot open it.
type pidsCgroup struct {
	dir   string
	procs *os.File
}

// newPidsCgroup makes a pids cgroup below vtexec's own, allowing max
// processes. It uses the v1 pids hierarchy, or v2 where pids is enabled
// for vtexec's cgroup's children.
func newPidsCgroup(max uint64) (*pidsCgroup, error) {
	parent, err := ownPidsCgroup()
	if err != nil {
		return nil, err
	}
	var r [6]byte
	rand.Read(r[:])
	dir := filepath.Join(parent, "vtexec-"+hex.EncodeToString(r[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max, 10)), 0o644); err != nil {
		os.Remove(dir)
		return nil, err
	}
	procs, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		os.Remove(dir)
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

// remove removes the cgroup once its processes are gone, waiting a
// little for the last of them to be reaped.
func (c *pidsCgroup) remove() {
	if c == nil {
		return
	}
	c.procs.Close()
	for i := 0; i < 20; i++ {
		if err := os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
