package vspawn

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noChildLeft asserts that this process has no child left, ended or not.
func noChildLeft(t *testing.T) {
	t.Helper()
	_, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
	assert.ErrorIs(t, err, syscall.ECHILD, "no child left behind")
}

// A parked child holds none of the caller's descriptors while it waits,
// takes the program it is given with its descriptors, arguments,
// environment and directory, in namespaces of its own inside the ones it
// joined, after the caller's calls.
func TestParkedStart(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	user, net := namespacesAhead(t)
	// Other programs' output, say: one pipe's end below the socket Park
	// makes, one above.
	other, otherW, err := os.Pipe()
	require.NoError(t, err)
	defer other.Close()
	other2, other2W, err := os.Pipe()
	require.NoError(t, err)
	defer other2.Close()
	high, err := unix.FcntlInt(other2W.Fd(), unix.F_DUPFD_CLOEXEC, 400)
	require.NoError(t, err)
	other2W.Close()
	var c Calls
	c.Add("mount a tmpfs", syscall.SYS_MOUNT, c.String("tmpfs"), c.String("/mnt"), c.String("tmpfs"), 0, c.String("size=64k"))
	c.Add("make a directory", syscall.SYS_MKDIRAT, ^uintptr(99), c.String("/mnt/made"), 0o755)
	p, err := Park(ParkAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC,
		JoinUser: user, JoinNet: net, Setpgid: true, Setup: &c, Files: 3})
	require.NoError(t, err)

	otherW.Close()
	unix.Close(high)
	for _, r := range []*os.File{other, other2} {
		require.NoError(t, r.SetReadDeadline(time.Now().Add(5*time.Second)))
		_, err = r.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "the parked child holds no copy of the caller's pipe")
	}

	_, err = p.Start("/bin/true", []string{"true"}, nil, "", []uintptr{0, 1})
	assert.ErrorIs(t, err, ErrNotParked, "two descriptors for a child parked for three")

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	dir := t.TempDir()
	pid, err := p.Start("/bin/sh", []string{"sh", "-c", `echo "$GREETING"; pwd; echo $$; ls /mnt; readlink /proc/self/ns/user /proc/self/ns/net; ls /proc/self/fd`},
		[]string{"GREETING=hello"}, dir, []uintptr{0, w.Fd(), w.Fd()})
	w.Close()
	require.NoError(t, err)
	assert.Equal(t, pid, p.Pid())
	out, _ := io.ReadAll(r)
	var ws syscall.WaitStatus
	_, err = syscall.Wait4(pid, &ws, 0, nil)
	require.NoError(t, err)
	require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
	lines := strings.Fields(string(out))
	require.GreaterOrEqual(t, len(lines), 6, string(out))
	assert.Equal(t, []string{"hello", dir, "1", "made"}, lines[:4], "its environment, directory, PID namespace and the setup's mounts")
	for i, f := range []*os.File{user, net} {
		l, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
		require.NoError(t, err)
		assert.Equal(t, l, lines[4+i], "the namespaces it joined")
	}
	assert.Equal(t, []string{"0", "1", "2", "3"}, lines[6:], "its three descriptors (and ls's own)")

	_, err = p.Start("/bin/true", []string{"true"}, nil, "", []uintptr{0, 1, 2})
	assert.ErrorIs(t, err, ErrNotParked, "a child starts one program")
	p.Discard() // started: left alone
	noChildLeft(t)
}

// A program that cannot be executed is the start's error, named as
// Start names it; a child whose own calls failed takes no program
// (ErrNotParked: the caller starts it another way); a child discarded
// is killed and reaped.
func TestParkedFailures(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	user, net := namespacesAhead(t)
	attr := ParkAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID, JoinUser: user, JoinNet: net, Files: 3}

	p, err := Park(attr)
	require.NoError(t, err)
	_, err = p.Start("/nonexistent/program", []string{"program"}, nil, "", []uintptr{0, 1, 2})
	var failed *CallError
	require.ErrorAs(t, err, &failed)
	assert.True(t, failed.Exec)
	assert.ErrorIs(t, err, syscall.ENOENT)
	noChildLeft(t)

	var bad Calls
	bad.Add("make a directory where none can be", syscall.SYS_MKDIRAT, ^uintptr(99), bad.String("/nonexistent/x"), 0o755)
	withBad := attr
	withBad.Setup = &bad
	p, err = Park(withBad)
	require.NoError(t, err, "the parked child's calls fail after Park returns")
	_, err = p.Start("/bin/true", []string{"true"}, nil, "", []uintptr{0, 1, 2})
	assert.ErrorIs(t, err, ErrNotParked)
	noChildLeft(t)

	p, err = Park(attr)
	require.NoError(t, err)
	pid := p.Pid()
	require.Greater(t, pid, 0)
	p.Discard()
	noChildLeft(t)
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "killed and reaped")
	_, err = p.Start("/bin/true", []string{"true"}, nil, "", []uintptr{0, 1, 2})
	assert.True(t, errors.Is(err, ErrNotParked), "a discarded child takes nothing")
}
