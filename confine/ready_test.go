//go:build linux

package confine

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readyThreadOf asks b to have a thread enter it ahead and waits until
// it has; nil where programs start otherwise (without root).
func readyThreadOf(t *testing.T, b *Box, git bool) *readyThread {
	b.KeepReady(git)
	b.threads.mu.Lock()
	rt := b.threads.ready[zygoteSlot(git)]
	b.threads.mu.Unlock()
	if rt != nil {
		<-rt.ready
		require.NoError(t, rt.err)
	}
	return rt
}

// heldThreadIPC opens the IPC namespace of rt's thread, keeps it open
// until the test ends, and returns its name.
func heldThreadIPC(t *testing.T, rt *readyThread) string {
	p := "/proc/self/task/" + strconv.Itoa(rt.tid) + "/ns/ipc"
	ns, err := os.Readlink(p)
	require.NoError(t, err)
	f, err := os.Open(p)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return ns
}

// As root, a long-lived caller's next program starts from a thread that
// entered the box ahead: it runs as the program would have — in its
// directory, with its environment, input and exit status — confined as
// before, with PID and IPC namespaces of its own; each such thread
// serves one program, so the next has new ones. Without root no thread
// enters ahead (a helper is started ahead instead).
func TestThreadEnteredAheadServesTheNextProgram(t *testing.T) {
	withoutParking(t) // threads enter ahead where no child is parked (cgroup v2)
	s := newServed(t)
	spec := s.spec
	b := openBox(t, spec)
	rt := readyThreadOf(t, b, false)
	if !b.root {
		assert.Nil(t, rt, "a thread entered ahead without root")
		return
	}
	require.NotNil(t, rt)
	group, err := b.NewGroup()
	require.NoError(t, err)
	defer group.Close()

	// The thread entered ahead is in the IPC namespace its program gets:
	// held open here, so that the second program's, made after the
	// first has ended, cannot take its number.
	held := heldThreadIPC(t, rt)
	used := threadsUsed.Load()
	out, werr := runOut(t, b, s.command(t, `echo "pid $$"; readlink /proc/self/ns/ipc`), StartOptions{Group: group})
	assert.Equal(t, used+1, threadsUsed.Load(), "the thread entered ahead started it")
	more := s.check(t, out, werr)
	require.GreaterOrEqual(t, len(more), 2, out)
	assert.Equal(t, "pid 1", more[0], "the first process of a PID namespace of its own")
	ownIPC, err := os.Readlink("/proc/self/ns/ipc")
	require.NoError(t, err)
	firstIPC := more[1]
	assert.NotEqual(t, ownIPC, firstIPC, "an IPC namespace of its own")
	assert.Equal(t, held, firstIPC, "the thread's")

	// It served one program: the next comes from a thread entered anew,
	// in IPC and PID namespaces new again.
	next := readyThreadOf(t, b, false)
	require.NotNil(t, next)
	assert.NotSame(t, rt, next)
	out, werr = runOut(t, b, command(spec, "/bin/sh", "-c", `echo "pid $$"; readlink /proc/self/ns/ipc`), StartOptions{Group: group})
	require.NoError(t, werr)
	assert.Equal(t, used+2, threadsUsed.Load())
	second := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, second, 2, out)
	assert.Equal(t, "pid 1", second[0])
	assert.NotEqual(t, firstIPC, second[1], "a second IPC namespace")

	// Without one ready, a program starts as before.
	out, werr = runOut(t, b, command(spec, "/bin/echo", "as before"), StartOptions{Group: group})
	require.NoError(t, werr)
	assert.Equal(t, "as before\n", out)
	assert.Equal(t, used+2, threadsUsed.Load())

	// Git's thread enters git's mount namespace, where the git
	// directories are writable; the others' is not used for git.
	require.NotNil(t, readyThreadOf(t, b, true))
	require.NotNil(t, readyThreadOf(t, b, false))
	out, werr = runOut(t, b, command(spec, "/bin/echo", "git"), StartOptions{Group: group, Git: true})
	require.NoError(t, werr)
	assert.Equal(t, "git\n", out)
	assert.Equal(t, used+3, threadsUsed.Load())
	b.threads.mu.Lock()
	assert.Nil(t, b.threads.ready[1], "git's was taken")
	assert.NotNil(t, b.threads.ready[0], "the others' waits still")
	b.threads.mu.Unlock()
}

// A program with a leader (a pipeline's later programs) or granted the
// network does not start from the thread entered ahead, which stays for
// the next program.
func TestThreadEnteredAheadOnlyForWhatItCarries(t *testing.T) {
	withoutParking(t) // threads enter ahead where no child is parked (cgroup v2)
	dir := t.TempDir()
	spec := Spec{ReadWrite: []string{dir}}
	b := openBox(t, spec)
	if readyThreadOf(t, b, false) == nil {
		assert.False(t, b.root)
		return
	}
	group, err := b.NewGroup()
	require.NoError(t, err)
	defer group.Close()
	used := threadsUsed.Load()
	lead := command(spec, "/bin/sleep", "5")
	lp, err := b.StartWith(lead, nil, StartOptions{Group: group})
	require.Equal(t, used+1, threadsUsed.Load(), "the leader came from it")
	require.NoError(t, err)
	defer func() { lp.Signal(9); lp.Wait() }()
	require.NotNil(t, readyThreadOf(t, b, false))
	out, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer out.Close()
	follower := command(spec, "/bin/echo", "follows")
	follower.Stdout = out
	fp, err := b.StartWith(follower, lp, StartOptions{Group: group})
	require.NoError(t, err)
	require.NoError(t, fp.Wait())
	assert.Equal(t, used+1, threadsUsed.Load(), "a pipeline's later program started from it")
	b.threads.mu.Lock()
	assert.NotNil(t, b.threads.ready[0])
	b.threads.mu.Unlock()
}

// A box closed while threads are entering it ahead waits for them
// before it closes what they use (run with -race: the ruleset's
// descriptor was read by a thread entering while Close closed it).
func TestClosingWaitsForThreadsEnteringAhead(t *testing.T) {
	withoutParking(t) // threads enter ahead where no child is parked (cgroup v2)
	for range 20 {
		b, err := Open(Spec{ReadWrite: []string{t.TempDir()}}, ModeRequired)
		require.NoError(t, err)
		b.KeepReady(false)
		b.KeepReady(true)
		require.NoError(t, b.CloseLast())
		b.threads.mu.Lock()
		assert.True(t, b.threads.closed)
		assert.Equal(t, [2]*readyThread{}, b.threads.ready)
		b.threads.mu.Unlock()
		b.KeepReady(false)
		b.threads.mu.Lock()
		assert.Nil(t, b.threads.ready[0], "none made once closed")
		b.threads.mu.Unlock()
	}
}

// withoutParking turns parked children off for t (see park_linux.go).
func withoutParking(t *testing.T) { parking(t, false) }

// parking turns parked children on or off until t ends.
func parking(t *testing.T, on bool) {
	saved := parkAhead
	parkAhead = on
	t.Cleanup(func() { parkAhead = saved })
}
