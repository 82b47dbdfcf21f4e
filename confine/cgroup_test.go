//go:build linux

package confine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startedIn starts sleep in b with group and reports whether, as soon
// as Start returns, the program is in the cgroup at dir, and is all it
// holds: the thread that started it has left.
func startedIn(t *testing.T, b *Box, group *Group, spec Spec, dir string) bool {
	t.Helper()
	p, err := b.StartWith(command(spec, "/bin/sleep", "1"), nil, StartOptions{Group: group})
	require.NoError(t, err)
	tasks := "tasks"
	if b.pids.cg.v2 {
		tasks = "cgroup.threads"
	}
	held, err := os.ReadFile(filepath.Join(dir, tasks))
	p.Signal(syscall.SIGKILL)
	p.Wait()
	require.NoError(t, err)
	return assert.Equal(t, []string{strconv.Itoa(p.Pid())}, strings.Fields(string(held)), "the cgroup's threads")
}

// A program is born in the box's pids cgroup, which holds nothing else
// once it has ended; a cgroup removed between runs (by another vtexec,
// as stale) is made again.
func TestProgramIsBornInThePidsCgroup(t *testing.T) {
	if !fullRoot() {
		t.Log("not root: RLIMIT_NPROC bounds the processes, no cgroup is made")
		return
	}
	spec := Spec{ReadWrite: []string{t.TempDir()}, Limits: Limits{Processes: 64}}
	b := openBox(t, spec)
	require.True(t, b.Report().PidsCgroup, "%v", b.Report().Missing)
	group, err := b.NewGroup()
	require.NoError(t, err)
	dir := b.pids.cg.dir
	t.Cleanup(func() { os.Remove(dir) })
	assert.True(t, startedIn(t, b, group, spec, dir), "in the cgroup from its start, alone")

	tasks, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	require.NoError(t, os.Remove(dir), "empty once the program has been waited for; it holds %q", tasks)
	assert.True(t, startedIn(t, b, group, spec, dir), "made again")
	max, err := os.ReadFile(filepath.Join(dir, "pids.max"))
	require.NoError(t, err)
	assert.Equal(t, "64", strings.TrimSpace(string(max)))

	// Closed, the box leaves no cgroup behind in the caller's; one at
	// the root of its hierarchy is kept for the next run.
	var dirs []string
	for _, c := range []*pidsCgroup{b.pids.cg, b.pids.mem} {
		if c != nil {
			dirs = append(dirs, c.dir)
		}
	}
	require.NoError(t, b.CloseLast())
	for _, d := range dirs {
		if atHierarchyRoot(filepath.Dir(d)) {
			assert.DirExists(t, d)
		} else {
			assert.NoDirExists(t, d, "in the caller's cgroup")
		}
	}
}

func TestRemoveStaleKeepsWhatIsInUseOrNew(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-2 * staleAfter)
	mk := func(name string, age time.Time, busy bool) string {
		d := filepath.Join(parent, name)
		require.NoError(t, os.Mkdir(d, 0o755))
		if busy { // a cgroup with a process cannot be removed; a full directory neither
			require.NoError(t, os.WriteFile(filepath.Join(d, "x"), nil, 0o644))
		}
		require.NoError(t, os.Chtimes(d, age, age))
		return d
	}
	own := mk("vtexec-own", old, false)
	stale := []string{mk("vtexec-a", old, false), mk("vtexec-b", old, false), mk("vtexec-c", old, false)}
	busy := mk("vtexec-busy", old, true)
	fresh := mk("vtexec-fresh", time.Now(), false)
	other := mk("not-ours", old, false)

	removeStale(parent, own, 2)
	left := 0
	for _, d := range stale {
		if _, err := os.Stat(d); err == nil {
			left++
		}
	}
	assert.Equal(t, 1, left, "at most n are removed")
	for _, d := range []string{own, busy, fresh, other} {
		assert.DirExists(t, d)
	}
	removeStale(parent, own, 16)
	for _, d := range stale {
		assert.NoDirExists(t, d)
	}
}

// Stale cgroups are found wherever the directory lists them: cgroupfs
// (like tmpfs) lists the newest first, and a machine that has run
// vtexec on many workspaces has more new ones than a glance at the
// first entries would pass.
func TestRemoveStaleLooksPastTheNewest(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-2 * staleAfter)
	var stale []string
	for i := range 3 {
		d := filepath.Join(parent, fmt.Sprintf("vtexec-stale-%d", i))
		require.NoError(t, os.Mkdir(d, 0o755))
		require.NoError(t, os.Chtimes(d, old, old))
		stale = append(stale, d)
	}
	for i := range 300 {
		require.NoError(t, os.Mkdir(filepath.Join(parent, fmt.Sprintf("vtexec-new-%03d", i)), 0o755))
	}
	removeStale(parent, "", 16)
	for _, d := range stale {
		assert.NoDirExists(t, d)
	}
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Len(t, entries, 300, "the new ones stay")
}

// Root without the right to make a pids cgroup (a container, a user
// namespace): the box says so and still runs its programs.
func TestBoxRunsWhereNoPidsCgroupCanBeMade(t *testing.T) {
	if !fullRoot() {
		t.Log("not root: no cgroup is tried")
		return
	}
	readOnly := t.TempDir()
	require.NoError(t, syscall.Mount("tmpfs", readOnly, "tmpfs", syscall.MS_RDONLY, "size=16k"))
	t.Cleanup(func() { syscall.Unmount(readOnly, 0) })
	old := pidsHierarchy
	pidsHierarchy = readOnly
	t.Cleanup(func() { pidsHierarchy = old })

	spec := Spec{ReadWrite: []string{t.TempDir()}, Limits: Limits{Processes: 64}}
	b := openBox(t, spec)
	r := b.Report()
	assert.False(t, r.PidsCgroup)
	assert.Contains(t, strings.Join(r.Missing, "\n"), "process count")
	group, err := b.NewGroup()
	require.NoError(t, err)
	assert.Nil(t, group)
	p, err := b.StartWith(command(spec, "/bin/true"), nil, StartOptions{Group: group})
	require.NoError(t, err)
	assert.NoError(t, p.Wait())
}

// A box's memory cgroup counts the programs the kernel killed for its
// bound, run after run of the same box, and again once the cgroup was
// removed between runs (by another vtexec, as stale) and made anew.
func TestOOMKillsAreCountedRunAfterRun(t *testing.T) {
	if !fullRoot() {
		t.Log("not root: no memory cgroup is made, and OOMKills says -1")
		b := openBox(t, Spec{ReadWrite: []string{t.TempDir()}, Limits: Limits{Memory: 32 << 20}})
		group, err := b.NewGroup()
		require.NoError(t, err)
		assert.Equal(t, -1, group.OOMKills())
		return
	}
	// Perl is in Debian's base: what the box sees of the system.
	grow := []string{"/usr/bin/perl", "-e", `my $x = "x" x (256 << 20); print length($x)`}
	b := openBox(t, Spec{ReadWrite: []string{t.TempDir()}, Limits: Limits{Memory: 32 << 20}})
	require.NotNil(t, b.pids.mem, "%v", b.Report().Missing)
	run := func() {
		group, err := b.NewGroup()
		require.NoError(t, err)
		before := group.OOMKills()
		require.GreaterOrEqual(t, before, 0)
		cmd := exec.Command(grow[0], grow[1:]...)
		cmd.Dir = "/"
		_, werr := runOut(t, b, cmd, StartOptions{Group: group})
		assert.Error(t, werr, "killed")
		assert.Equal(t, before+1, group.OOMKills(), "one OOM kill more")
		group.Close()
	}
	run()
	run()
	require.NoError(t, os.Remove(b.pids.mem.dir), "empty between runs")
	run()
}
