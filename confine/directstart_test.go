//go:build linux

package confine

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec/internal/early"
	"github.com/vtexec/vtexec/internal/vspawn"
)

// boxProbe prints what confines the program it runs as: its
// capabilities, no_new_privs and filters, its mounts (points, options,
// types, sources), its limits, what it can write, Landlock's answer
// to a device's ioctl (a terminal's request on /dev/null: "not a
// terminal" where the device's ioctls are not refused), and the
// descriptors it was given (vtexec's own, such as the rules' paths,
// must not be among them); and whether it sees only a few processes, its
// own (how many of them are there yet is a race of the pipeline's).
const boxProbe = `echo fds: $(ls /proc/self/fd)
grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters):' /proc/self/status
awk '{ sep = 0; s = $4 " " $5 " " $6; for (i = 7; i <= NF; i++) { if ($i == "-") sep = 1; if (sep) s = s " " $i }; print s }' /proc/self/mountinfo
cat /proc/self/limits
stty -F /dev/null 2>&1
echo x > /dev/shm/probe && echo shm-writable
echo x > made.txt && echo workspace-writable
echo y >> .envrc || echo protected-refused
ls -a /
ls /proc | grep -c '^[0-9]' | awk '{ print ($1 < 10 ? "own-processes-only" : "processes: " $1) }'
`

// probeBox runs boxProbe in b in the workspace dir, whose .envrc,
// protected, holds "keep", and returns its output.
func probeBox(t *testing.T, b *Box, dir string) string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", boxProbe)
	cmd.Dir = dir
	out, err := runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	data, err := os.ReadFile(filepath.Join(dir, ".envrc"))
	require.NoError(t, err)
	require.Equal(t, "keep\n", string(data), "the protected .envrc")
	return out
}

// Without root a program starts directly, its box set up by vtexec's
// child: confined exactly as the helper confines it (the same mounts,
// capabilities, filter, limits and Landlock rules), and without a
// helper's start. As root no helper starts programs.
func TestDirectStartConfinesAsTheHelper(t *testing.T) {
	run := func(direct bool) string {
		saved := directStart
		directStart = direct
		defer func() { directStart = saved }()
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".envrc"), []byte("keep\n"), 0o644))
		spec := Spec{ReadWrite: []string{dir}, Protected: []Protected{{Path: filepath.Join(dir, ".envrc")}},
			Limits: Limits{OpenFiles: 512, FileSize: 1 << 30}}
		b := openBox(t, spec)
		before := directStarts.Load()
		out := probeBox(t, b, dir)
		if b.root || !b.userns || !directStart {
			assert.Equal(t, before, directStarts.Load(), "no direct start")
		} else {
			assert.Equal(t, before+1, directStarts.Load(), "a direct start")
		}
		// The workspace's own path differs between the two runs.
		return strings.ReplaceAll(out, dir, "WORKSPACE")
	}
	direct := run(true)
	for _, want := range []string{"fds: 0 1 2 3\n", "NoNewPrivs:\t1", "CapBnd:\t0000000000000000", "CapEff:\t0000000000000000", "shm-writable", "workspace-writable", "protected-refused",
		"Max open files            512                  512", "WORKSPACE/.envrc ro,", "own-processes-only"} {
		assert.Contains(t, direct, want)
	}
	assert.Equal(t, run(false), direct, "the helper's box and the direct one")
}

// A program that cannot be executed in the box fails to start as os/exec
// says it, started directly or not; a box that cannot be set up names
// the call that failed.
func TestDirectStartFailures(t *testing.T) {
	dir := t.TempDir()
	spec := Spec{ReadWrite: []string{dir}}
	b := openBox(t, spec)
	missing := filepath.Join(t.TempDir(), "not-in-the-box")
	require.NoError(t, os.WriteFile(missing, []byte("#!/bin/sh\n"), 0o755))
	cmd := exec.Command(missing)
	cmd.Dir = dir
	p, err := b.StartWith(cmd, nil, StartOptions{})
	if b.root || !b.userns {
		// Not in the box either; as root, os/exec's own error.
		require.Error(t, err)
		assert.ErrorIs(t, err, os.ErrNotExist)
		return
	}
	if err == nil {
		// Where no direct start is made, the helper fails in its place.
		require.False(t, directStart)
		assert.Error(t, p.Wait())
		return
	}
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, "fork/exec "+missing+": no such file or directory", err.Error())

	// A read-write directory gone: no rule, no box, and the start says so.
	gone := t.TempDir()
	spec = Spec{ReadWrite: []string{dir, gone}}
	b = openBox(t, spec)
	require.NoError(t, os.Remove(gone))
	cmd = exec.Command("/bin/true")
	cmd.Dir = dir
	_, err = b.StartWith(cmd, nil, StartOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), gone)
}

// A one-box process makes its box's shared user and network namespaces
// while it checks the command (PrepareNamespaces): the first program
// joins them. As root nothing is made ahead.
func TestFirstProgramJoinsNamespacesMadeAhead(t *testing.T) {
	dir := t.TempDir()
	takenBefore := preparedNS.taken.Load() // by this test, run before in this process
	PrepareNamespaces()
	if preparedNS.work != nil {
		rootUnknown()         // made without a keeper, as a program's start has them
		preparedNS.work.Get() // begun, by the background or here
	}
	b := openBox(t, Spec{ReadWrite: []string{dir}})
	cmd := exec.Command("/bin/readlink", "/proc/self/ns/user", "/proc/self/ns/net")
	cmd.Dir = dir
	out, err := runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	if b.root || !b.userns || !directStart {
		assert.Nil(t, preparedNS.work, "nothing made ahead")
		return
	}
	m, begun := preparedNS.work.Begun()
	require.True(t, begun)
	require.NotNil(t, m.user, "made ahead")
	assert.True(t, preparedNS.taken.Load())
	if takenBefore {
		return // by an earlier run of this test, whose box has closed them
	}
	var made []string
	for _, f := range []*os.File{m.user, m.net} {
		l, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
		require.NoError(t, err)
		made = append(made, l)
	}
	assert.Equal(t, made, strings.Fields(out), "the program is in the namespaces made ahead")
}

// Namespaces nothing began making by the first program's start are
// never made: its child makes its own, which the box's later programs
// join.
func TestFirstProgramMakesItsOwnNamespacesWhenNothingBegan(t *testing.T) {
	saved := preparedNS.work
	t.Cleanup(func() { preparedNS.work = saved })
	preparedNS.work = &early.Work[madeNamespaces]{} // started, never begun
	wasTaken := preparedNS.taken.Swap(false)
	t.Cleanup(func() { preparedNS.taken.Store(wasTaken) })
	dir := t.TempDir()
	b := openBox(t, Spec{ReadWrite: []string{dir}})
	// Each program ends only once told (its stdin closed), after its
	// start has returned: one that has ended by then (a slow start) has
	// no namespaces left to keep, and the next rightly makes its own.
	var seen []string
	for range 2 {
		in, tell, err := os.Pipe()
		require.NoError(t, err)
		cmd := exec.Command("/bin/sh", "-c", "readlink /proc/self/ns/user /proc/self/ns/net; read -r _ || :")
		cmd.Dir, cmd.Stdin = dir, in
		out, err := runOutThen(t, b, cmd, StartOptions{}, func() { in.Close(); tell.Close() })
		require.NoError(t, err, out)
		seen = append(seen, out)
	}
	if b.root || !b.userns || !directStart {
		assert.False(t, preparedNS.taken.Load(), "nothing adopted")
		return
	}
	assert.True(t, preparedNS.taken.Load())
	_, begun := preparedNS.work.Begun()
	assert.False(t, begun, "given up, not made")
	mine, err := os.Readlink("/proc/self/ns/net")
	require.NoError(t, err)
	assert.NotContains(t, seen[0], mine, "the program has a network namespace of its own")
	assert.Equal(t, seen[0], seen[1], "the next program joins the first's")
}

// Each program of a box finds /dev/shm empty, however the box starts it
// (as root, from a kept mount namespace; a long-lived caller's box
// serves many runs): what one program leaves there is not the next's.
func TestEachProgramHasItsOwnShm(t *testing.T) {
	dir := t.TempDir()
	b := openBox(t, Spec{ReadWrite: []string{dir}})
	for i := range 2 {
		cmd := exec.Command("/bin/sh", "-c", "ls /dev/shm; echo x > /dev/shm/left")
		cmd.Dir = dir
		out, err := runOut(t, b, cmd, StartOptions{})
		require.NoError(t, err, out)
		if i == 0 {
			assert.Equal(t, "", out, "the first program finds it empty")
			continue
		}
		assert.Equal(t, "", out, "the next program finds what the first left")
	}
	b.KeepReady(false) // as root a thread enters the box ahead; without root a template or a helper is made
	cmd := exec.Command("/bin/ls", "/dev/shm")
	cmd.Dir = dir
	out, err := runOut(t, b, cmd, StartOptions{})
	require.NoError(t, err, out)
	assert.Equal(t, "", out, "a program started by what the box prepared ahead")
}

// nsHeld reports whether a descriptor of this process refers to ns (as
// readlink gives a namespace: "mnt:[4026532…]").
func nsHeld(t *testing.T, ns string) bool {
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, e := range entries {
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); l == ns {
			return true
		}
	}
	return false
}

// Without root a program's mount namespace is held past the program's
// exit, so the exit does not wait for the namespace's teardown, and let
// go once the program has been waited for; or handed, as it starts, to
// what LeaveNamespacesAtExit named. As root the thread that started the
// program holds it, and nothing is held here.
func TestProgramsMountNamespaceOutlivesItUntilWaitedFor(t *testing.T) {
	dir := t.TempDir()
	b := openBox(t, Spec{ReadWrite: []string{dir}})
	// The program ends only once told (its stdin closed), after its
	// start has returned: a slow start (the race detector) would
	// otherwise find it ended already, past helping.
	start := func() (string, Process) {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		defer r.Close()
		in, tell, err := os.Pipe()
		require.NoError(t, err)
		defer in.Close()
		cmd := exec.Command("/bin/sh", "-c", "readlink /proc/self/ns/mnt; read -r _ || :")
		cmd.Dir, cmd.Stdout, cmd.Stdin = dir, w, in
		p, err := b.StartWith(cmd, nil, StartOptions{})
		w.Close()
		tell.Close()
		require.NoError(t, err)
		out, err := io.ReadAll(r) // to its end: the program has exited
		require.NoError(t, err)
		return strings.TrimSpace(string(out)), p
	}
	ns, p := start()
	require.True(t, strings.HasPrefix(ns, "mnt:["), ns)
	direct := !b.root && b.userns && vspawn.Available
	assert.Equal(t, direct, nsHeld(t, ns), "held past the program's exit, before its wait")
	require.NoError(t, p.Wait())
	assert.Eventually(t, func() bool { return !nsHeld(t, ns) }, 5*time.Second, time.Millisecond, "let go once waited for")
	if !direct {
		return
	}

	var left []*os.File
	LeaveNamespacesAtExit(func(f *os.File) bool { left = append(left, f); return true })
	t.Cleanup(func() { leaveAtExit.Store(nil) })
	ns, p = start()
	require.NoError(t, p.Wait())
	require.Len(t, left, 1, "handed over as the program started")
	l, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(left[0].Fd())))
	require.NoError(t, err)
	assert.Equal(t, ns, l)
	left[0].Close()
}
