package exithold

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	switch os.Getenv("EXITHOLD_CHILD") {
	case "1":
		child()
	case "later":
		childClosingLater()
	}
	os.Exit(m.Run())
}

// child is the process under test: it starts a holder, giving it the
// read end of a pipe of its own, says both pids and which descriptor it
// gave, and exits when its stdin ends.
func child() {
	r, w, err := os.Pipe()
	if err != nil {
		os.Exit(2)
	}
	defer w.Close()
	runtime.LockOSThread() // to read this thread's mask before and after
	before := sigBlk()
	pid := Hold(r)
	if sigBlk() != before {
		os.Exit(3) // the caller's signals left blocked
	}
	os.Stdout.WriteString(strconv.Itoa(pid) + " " + strconv.Itoa(int(r.Fd())) + "\n")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// childClosingLater leaves its descriptor 3, the write end of its
// parent's pipe, to be closed after its exit, starts a holder, says its
// pid, and exits when its stdin ends.
func childClosingLater() {
	if !CloseAfterExit(os.NewFile(3, "pipe")) {
		os.Exit(2)
	}
	os.Stdout.WriteString(strconv.Itoa(Hold(nil)) + "\n")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// underTest is this test binary run as the process under test (its role
// as EXITHOLD_CHILD says), in a directory of its own, given extra as its
// descriptors from 3, and the first line it wrote; it is killed when t
// ends.
type underTest struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	line   string
}

func startChild(t *testing.T, role string, extra ...*os.File) underTest {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "EXITHOLD_CHILD="+role)
	cmd.Dir = t.TempDir()
	cmd.ExtraFiles = extra
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	require.NoError(t, err)
	return underTest{cmd, stdin, out, line}
}

// What CloseAfterExit was given stays open while the process runs,
// though the process closed its descriptor, is held by the holder past
// the process's exit in one socket, and is let go once the holder ends.
func TestCloseAfterExitHoldsUntilTheHolderEnds(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	c := startChild(t, "later", w)
	w.Close()
	cmd, stdin := c.cmd, c.stdin
	holder := strings.TrimSpace(c.line)
	require.NotEqual(t, "0", holder, "the holder started")

	eof := make(chan struct{})
	go func() { io.Copy(io.Discard, r); close(eof) }()
	select {
	case <-eof:
		t.Fatal("the pipe ended while the process runs: what it left was closed")
	case <-time.After(100 * time.Millisecond):
	}
	var fds []string
	require.Eventually(t, func() bool {
		entries, err := os.ReadDir(filepath.Join("/proc", holder, "fd"))
		if err != nil {
			return false
		}
		fds = fds[:0]
		for _, e := range entries {
			l, _ := os.Readlink(filepath.Join("/proc", holder, "fd", e.Name()))
			fds = append(fds, l)
		}
		return len(fds) == 2
	}, 10*time.Second, time.Millisecond)
	assert.Contains(t, fds[1], "socket:", "the holder keeps the socket that holds it")

	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())
	select {
	case <-eof:
	case <-time.After(10 * time.Second):
		t.Fatal("the pipe did not end once the process and its holder had")
	}
}

// sigBlk is the calling thread's blocked signals, as /proc shows them.
func sigBlk() string {
	status, _ := os.ReadFile("/proc/thread-self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "SigBlk:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// The holder shares the process's memory, keeps only the descriptor it
// was given and its pipe, sits in /, blocks every signal (the caller's
// thread has its own mask again), lets the caller's streams end with the
// process, and ends itself once the process has.
func TestHolderOutlivesTheProcessAndHoldsNothingElse(t *testing.T) {
	c := startChild(t, "1")
	cmd, stdin, stdout := c.cmd, c.stdin, c.stdout
	fields := strings.Fields(c.line)
	require.Len(t, fields, 2)
	holder, given := fields[0], fields[1]
	require.NotEqual(t, "0", holder, "the holder started")
	proc := func(pid string, name ...string) string {
		return filepath.Join(append([]string{"/proc", pid}, name...)...)
	}

	// Its memory is the process's: kcmp(KCMP_VM) says 0 for the same.
	hpid, _ := strconv.Atoi(holder)
	same, _, errno := syscall.Syscall6(sysKcmp, uintptr(cmd.Process.Pid), uintptr(hpid), 1, 0, 0, 0)
	require.Zero(t, errno, "kcmp")
	assert.Zero(t, same, "the holder shares the process's memory")

	// Wait for it to have closed what it does not keep.
	fds := map[string]string{}
	require.Eventually(t, func() bool {
		entries, err := os.ReadDir(proc(holder, "fd"))
		if err != nil {
			return false
		}
		clear(fds)
		for _, e := range entries {
			fds[e.Name()], _ = os.Readlink(proc(holder, "fd", e.Name()))
		}
		return len(fds) <= 2
	}, 10*time.Second, time.Millisecond, "the holder keeps two descriptors: %v", fds)
	givenTarget, err := os.Readlink(proc(strconv.Itoa(cmd.Process.Pid), "fd", given))
	require.NoError(t, err)
	assert.Equal(t, givenTarget, fds["1"], "the descriptor it was given")
	assert.Contains(t, fds["0"], "pipe:", "the pipe it reads")
	cwd, err := os.Readlink(proc(holder, "cwd"))
	require.NoError(t, err)
	assert.Equal(t, "/", cwd, "not the caller's directory")
	status, err := os.ReadFile(proc(holder, "status"))
	require.NoError(t, err)
	assert.Contains(t, string(status), "\nSigBlk:\tfffffffffffbfeff\n", "every signal that can be is blocked")

	// The process ends: its streams end with it, and then the holder.
	require.NoError(t, stdin.Close())
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stdout); done <- err }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the process's stdout did not end: the holder keeps it")
	}
	require.NoError(t, cmd.Wait())
	assert.Eventually(t, func() bool {
		status, err := os.ReadFile(proc(holder, "status"))
		return err != nil || strings.Contains(string(status), "\nState:\tZ")
	}, 10*time.Second, time.Millisecond, "the holder ends once the process has")
}

// sysKcmp is kcmp's number on amd64.
const sysKcmp = 312
