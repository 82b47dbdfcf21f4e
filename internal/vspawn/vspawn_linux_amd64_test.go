package vspawn

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const namespaces = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET

// userNamespaces reports whether this user may make a user namespace.
// Where it may not, Start must refuse it as a CloneError (which callers
// answer by starting the program another way), never start the program
// outside one: that is asserted here, and the caller's test ends.
func userNamespaces(t *testing.T) bool {
	t.Helper()
	pid, err := Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Files: []uintptr{0, 1, 2},
		Cloneflags: namespaces, UID: os.Getuid(), GID: os.Getgid()})
	if err == nil {
		reap(pid)
		return true
	}
	var refused *CloneError
	require.ErrorAs(t, err, &refused, "without user namespaces the clone itself is refused")
	return false
}

// namespacesAhead makes a user and a network namespace with Namespaces,
// closed when t ends.
func namespacesAhead(t *testing.T) (user, net *os.File) {
	t.Helper()
	user, net, err := Namespaces(os.Getuid(), os.Getgid(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { user.Close(); net.Close() })
	return user, net
}

func run(t *testing.T, a Attr) (string, syscall.WaitStatus) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	a.Files = append([]uintptr{0, w.Fd(), w.Fd()}, a.Files...)
	pid, err := Start(a)
	w.Close()
	require.NoError(t, err)
	out, _ := io.ReadAll(r)
	var ws syscall.WaitStatus
	_, err = syscall.Wait4(pid, &ws, 0, nil)
	require.NoError(t, err)
	return string(out), ws
}

// The child is in new namespaces, root of its user namespace mapped to
// the caller's ids, the first process of its PID namespace, with only
// loopback in its network namespace, in the directory asked for, with
// its arguments and environment as given.
func TestStartInNewNamespaces(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	dir := t.TempDir()
	out, ws := run(t, Attr{Path: "/bin/sh", Argv: []string{"sh", "-c", `echo $$; id -u; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups; pwd; echo "$1$X"; tail -n +3 /proc/net/dev | cut -d: -f1`, "sh", "arg"},
		Env: []string{"X=env"}, Dir: dir, Cloneflags: namespaces, UID: os.Getuid(), GID: os.Getgid(), Setpgid: true, Pdeathsig: syscall.SIGKILL})
	require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
	lines := strings.Fields(out)
	require.GreaterOrEqual(t, len(lines), 12, out)
	assert.Equal(t, "1", lines[0], "the first process of a new PID namespace")
	assert.Equal(t, "0", lines[1], "root of its user namespace")
	assert.Equal(t, []string{"0", strconv.Itoa(os.Getuid()), "1"}, lines[2:5], "uid map")
	assert.Equal(t, []string{"0", strconv.Itoa(os.Getgid()), "1"}, lines[5:8], "gid map")
	assert.Equal(t, "deny", lines[8])
	assert.Equal(t, dir, lines[9])
	assert.Equal(t, "argenv", lines[10])
	assert.Equal(t, []string{"lo"}, lines[11:], "only loopback: a network namespace of its own")
}

// Descriptors land where Files says, and no other of the caller's is
// open in the program unless the caller left it open across exec.
func TestStartPlacesDescriptors(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	f, err := os.CreateTemp(t.TempDir(), "three")
	require.NoError(t, err)
	_, err = f.WriteString("on three\n")
	require.NoError(t, err)
	_, err = f.Seek(0, 0)
	require.NoError(t, err)
	// A descriptor of the caller's, close-on-exec as Go makes them all,
	// and one open across exec, as a caller's caller may leave one.
	other, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer other.Close()
	inherited, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer inherited.Close()
	_, err = unix.FcntlInt(inherited.Fd(), unix.F_SETFD, 0)
	require.NoError(t, err)
	out, ws := run(t, Attr{Path: "/bin/sh", Argv: []string{"sh", "-c", "cat <&3; ls /proc/self/fd"}, Files: []uintptr{f.Fd()},
		Cloneflags: namespaces, UID: os.Getuid(), GID: os.Getgid()})
	require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
	lines := strings.Fields(out)
	assert.Equal(t, []string{"on", "three"}, lines[:2])
	fds := lines[2:]
	for _, want := range []string{"0", "1", "2", "3"} {
		assert.Contains(t, fds, want)
	}
	assert.NotContains(t, fds, strconv.Itoa(int(other.Fd())), "the caller's close-on-exec descriptors are not the program's")
	assert.NotContains(t, fds, strconv.Itoa(int(inherited.Fd())), "nor one the caller has open across exec")
}

// A program that cannot be executed is an error naming what failed, and
// the child is gone.
func TestStartReportsWhatFailed(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	_, err := Start(Attr{Path: "/nonexistent/program", Argv: []string{"x"}, Files: []uintptr{0, 1, 2},
		Cloneflags: namespaces, UID: os.Getuid(), GID: os.Getgid()})
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.ENOENT)
	assert.Contains(t, err.Error(), "execve /nonexistent/program")
	var failed *CallError
	require.ErrorAs(t, err, &failed)
	assert.True(t, failed.Exec, "the exec failed")
	_, err = Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Dir: "/nonexistent", Files: []uintptr{0, 1, 2}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "chdir /nonexistent")
	require.ErrorAs(t, err, &failed)
	assert.False(t, failed.Exec, "a call before the exec failed")
	_, werr := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
	assert.ErrorIs(t, werr, syscall.ECHILD, "a failed child is waited for")
}

// The child starts with the signal dispositions a program expects: a
// signal this process handles is at its default in the child, one it
// ignores stays ignored.
func TestStartResetsHandledSignals(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	// Go handles SIGINT here once Notify asked; SIGHUP ignored.
	c := make(chan os.Signal, 1)
	signalNotify(c, syscall.SIGINT)
	defer signalStop(c)
	signalIgnore(syscall.SIGHUP)
	defer signalReset(syscall.SIGHUP)
	out, ws := run(t, Attr{Path: "/bin/sh", Argv: []string{"sh", "-c", "grep -E '^Sig(Ign|Cgt|Blk)' /proc/self/status"},
		Cloneflags: namespaces, UID: os.Getuid(), GID: os.Getgid()})
	require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
	fields := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, ":")
		n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		require.NoError(t, err)
		fields[k] = n
	}
	bit := func(s syscall.Signal) uint64 { return 1 << (uint(s) - 1) }
	assert.Zero(t, fields["SigBlk"], "nothing blocked")
	assert.NotZero(t, fields["SigIgn"]&bit(syscall.SIGHUP), "an ignored signal stays ignored")
	assert.Zero(t, fields["SigIgn"]&bit(syscall.SIGINT), "a handled signal is at its default")
}

// A child can join a user namespace and a network namespace made
// earlier, and still get mount, PID and IPC namespaces of its own; it is
// this process's child, not the first clone's.
func TestStartJoinsNamespaces(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	in, hold, err := os.Pipe()
	require.NoError(t, err)
	defer in.Close()
	// The first: in namespaces of its own, waiting on its stdin.
	first, err := Start(Attr{Path: "/bin/sh", Argv: []string{"sh", "-c", "read x"}, Files: []uintptr{in.Fd(), 1, 2},
		Cloneflags: namespaces, UID: os.Getuid(), GID: os.Getgid()})
	require.NoError(t, err)
	defer hold.Close()
	ns := func(pid int, kind string) string {
		l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/" + kind)
		require.NoError(t, err)
		return l
	}
	user, err := os.Open("/proc/" + strconv.Itoa(first) + "/ns/user")
	require.NoError(t, err)
	defer user.Close()
	net, err := os.Open("/proc/" + strconv.Itoa(first) + "/ns/net")
	require.NoError(t, err)
	defer net.Close()

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	second, err := Start(Attr{Path: "/bin/sh", Argv: []string{"sh", "-c", "echo $$; id -u; read x"}, Files: []uintptr{in.Fd(), w.Fd(), 2},
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC, JoinUser: user, JoinNet: net, Setpgid: true, Pdeathsig: syscall.SIGKILL})
	w.Close()
	in.Close()
	require.NoError(t, err)
	br := bufio.NewReader(r)
	var out []string
	for range 2 {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		out = append(out, strings.TrimSpace(line))
	}
	assert.Equal(t, []string{"1", "0"}, out, "PID 1 of its own namespace, root of the joined one")
	assert.Equal(t, ns(first, "user"), ns(second, "user"))
	assert.Equal(t, ns(first, "net"), ns(second, "net"))
	for _, kind := range []string{"mnt", "pid", "ipc"} {
		assert.NotEqual(t, ns(first, kind), ns(second, kind), kind)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(second) + "/stat")
	require.NoError(t, err)
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	assert.Equal(t, strconv.Itoa(os.Getpid()), fields[1], "this process's child")
	hold.Close() // both read their stdin's end
	for _, pid := range []int{second, first} {
		var ws syscall.WaitStatus
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		require.NoError(t, err)
		assert.True(t, ws.Exited())
	}

	// A namespace that cannot be joined is an error naming it.
	devnull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer devnull.Close()
	_, err = Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Files: []uintptr{0, 1, 2},
		Cloneflags: syscall.CLONE_NEWNS, JoinUser: devnull})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "setns user")
	_, werr := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
	assert.ErrorIs(t, werr, syscall.ECHILD, "no child left behind")
}

// A clone the kernel refuses (here: flags it rejects) is a CloneError,
// which callers may answer by starting the program another way.
func TestStartSaysWhenTheCloneIsRefused(t *testing.T) {
	_, err := Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Files: []uintptr{0, 1, 2},
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_FS})
	var refused *CloneError
	require.ErrorAs(t, err, &refused)
	assert.ErrorIs(t, err, syscall.EINVAL)
}

// The caller's calls run in the child before its exec: a failure names
// the call, an errno the caller allowed is none, and the limits are the
// program's.
func TestStartMakesTheCallersCalls(t *testing.T) {
	dir := t.TempDir()
	mkdir := func(allow syscall.Errno) *Calls {
		var c Calls
		i := c.Add("mkdir missing", syscall.SYS_MKDIR, c.String(dir+"/missing/x"), 0o755)
		if allow != 0 {
			c.Allow(i, allow)
		}
		c.Add("mkdir made", syscall.SYS_MKDIR, c.String(dir+"/made"), 0o755)
		return &c
	}
	_, err := Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Files: []uintptr{0, 1, 2}, Setup: mkdir(0)})
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.ENOENT)
	assert.Contains(t, err.Error(), "mkdir missing")
	assert.NoDirExists(t, dir+"/made", "nothing after the failed call ran")
	_, err = Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Files: []uintptr{0, 1, 2}, Setup: mkdir(syscall.EEXIST)})
	require.Error(t, err, "another errno allowed is still a failure")
	assert.Contains(t, err.Error(), "mkdir missing")
	var bad Calls
	bad.Add("mkdir", syscall.SYS_MKDIR, bad.String(dir+"/a\x00b"), 0o755)
	_, err = Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Files: []uintptr{0, 1, 2}, Setup: &bad})
	require.Error(t, err, "a string with a NUL is no argument")
	assert.ErrorIs(t, err, syscall.EINVAL)

	out, ws := run(t, Attr{Path: "/bin/sh", Argv: []string{"sh", "-c", "ulimit -n; ulimit -Hn"}, Setup: mkdir(syscall.ENOENT),
		Rlimits: []Rlimit{{Resource: syscall.RLIMIT_NOFILE, Cur: 64, Max: 65}}})
	require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
	assert.Equal(t, []string{"64", "65"}, strings.Fields(out))
	assert.DirExists(t, dir+"/made")
	_, werr := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
	assert.ErrorIs(t, werr, syscall.ECHILD, "no child left behind")
}

// A descriptor the child opened is written where a later call reads it:
// here the rights of a message the child sends, which hold -1 until the
// result is stored (sendmsg then fails with EBADF); the descriptor that
// arrives is the file the child opened.
func TestStartStoresAResultForALaterCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opened")
	require.NoError(t, os.WriteFile(path, []byte("the child's\n"), 0o644))
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	send := func(store bool) error {
		var c Calls
		rights := syscall.UnixRights(-1)
		fd := (*int32)(unsafe.Pointer(&rights[syscall.CmsgLen(0)]))
		one := []byte{1}
		msg := &syscall.Msghdr{Iov: &syscall.Iovec{Base: &one[0], Len: 1}, Iovlen: 1, Control: &rights[0]}
		msg.SetControllen(len(rights))
		c.Keep(rights)
		c.Keep(one)
		c.Keep(msg)
		open := c.Add("open", syscall.SYS_OPEN, c.String(path), syscall.O_RDONLY|syscall.O_CLOEXEC)
		if store {
			c.StoreResult(fd, open)
		}
		c.Add("sendmsg", syscall.SYS_SENDMSG, uintptr(fds[1]), uintptr(unsafe.Pointer(msg)), 0)
		pid, err := Start(Attr{Path: "/bin/true", Argv: []string{"true"}, Files: []uintptr{0, 1, 2}, Setup: &c})
		if err == nil {
			reap(pid)
		}
		return err
	}
	err = send(false)
	require.Error(t, err, "without the store the rights hold -1")
	assert.ErrorIs(t, err, syscall.EBADF)
	assert.Contains(t, err.Error(), "sendmsg")

	require.NoError(t, send(true))
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := syscall.Recvmsg(fds[0], buf, oob, syscall.MSG_DONTWAIT|syscall.MSG_CMSG_CLOEXEC)
	require.NoError(t, err)
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	got, err := syscall.ParseUnixRights(&msgs[0])
	require.NoError(t, err)
	require.Len(t, got, 1)
	f := os.NewFile(uintptr(got[0]), "received")
	defer f.Close()
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "the child's\n", string(data), "the descriptor the child opened")
}

// Namespaces made ahead are a user namespace with this process's ids
// mapped to 0 and a network namespace it owns, which Start joins.
func TestNamespacesMadeAhead(t *testing.T) {
	if !userNamespaces(t) {
		_, _, err := Namespaces(os.Getuid(), os.Getgid(), nil)
		var refused *CloneError
		assert.ErrorAs(t, err, &refused, "refused as Start's clone is")
		return
	}
	user, net := namespacesAhead(t)
	self := func(kind string) string {
		l, err := os.Readlink("/proc/self/ns/" + kind)
		require.NoError(t, err)
		return l
	}
	out, ws := run(t, Attr{Path: "/bin/sh", Argv: []string{"sh", "-c", "id -u; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups; readlink /proc/self/ns/user /proc/self/ns/net"},
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC, JoinUser: user, JoinNet: net})
	require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
	lines := strings.Fields(out)
	require.Len(t, lines, 10, out)
	assert.Equal(t, "0", lines[0])
	assert.Equal(t, []string{"0", strconv.Itoa(os.Getuid()), "1"}, lines[1:4], "uid map")
	assert.Equal(t, []string{"0", strconv.Itoa(os.Getgid()), "1"}, lines[4:7], "gid map")
	assert.Equal(t, "deny", lines[7])
	assert.NotEqual(t, self("user"), lines[8], "a user namespace of its own")
	assert.NotEqual(t, self("net"), lines[9], "a network namespace of its own")
	for _, f := range []*os.File{user, net} {
		l, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
		require.NoError(t, err)
		assert.Contains(t, []string{lines[8], lines[9]}, l, "the program's namespaces are the ones returned")
	}
	_, werr := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
	assert.ErrorIs(t, werr, syscall.ECHILD, "no child left behind")
}

// Namespaces makes its setup calls in the new namespaces, as their root:
// a loopback brought up there is up for a program that joins them (its
// address in the routing table), and only there; a call that fails is
// named and nothing is returned.
func TestNamespacesMakeTheirSetupCalls(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	up := &Calls{}
	sock := up.Add("socket", syscall.SYS_SOCKET, syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	ifr := &[40]byte{'l', 'o'} // struct ifreq: the name, then the flags
	*(*uint16)(unsafe.Pointer(&ifr[16])) = syscall.IFF_UP | syscall.IFF_LOOPBACK
	up.Keep(ifr)
	i := up.Add("loopback up", syscall.SYS_IOCTL, 0, syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(ifr)))
	up.UseResult(i, 0, sock)
	routes := func(setup *Calls) string {
		user, net, err := Namespaces(os.Getuid(), os.Getgid(), setup)
		require.NoError(t, err)
		defer user.Close()
		defer net.Close()
		out, ws := run(t, Attr{Path: "/bin/cat", Argv: []string{"cat", "/proc/net/fib_trie"}, JoinUser: user, JoinNet: net})
		require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
		return out
	}
	assert.Contains(t, routes(up), "127.0.0.1", "the loopback is up")
	assert.NotContains(t, routes(nil), "127.0.0.1", "down where no setup brought it up")

	failing := &Calls{}
	failing.Add("a call that fails", syscall.SYS_CLOSE, 1<<30)
	user, net, err := Namespaces(os.Getuid(), os.Getgid(), failing)
	var failed *CallError
	require.ErrorAs(t, err, &failed)
	assert.Equal(t, "a call that fails", failed.Call)
	assert.ErrorIs(t, failed.Err, syscall.EBADF)
	assert.Nil(t, user)
	assert.Nil(t, net)
}

// MountNamespace returns the mount namespace its calls set up, in the
// user namespace given: a program that joins both finds what they made.
// A call that fails is named, and nothing is returned.
func TestMountNamespace(t *testing.T) {
	if !userNamespaces(t) {
		return
	}
	user, net := namespacesAhead(t)
	var c Calls
	c.Add("mount a tmpfs", syscall.SYS_MOUNT, c.String("tmpfs"), c.String("/mnt"), c.String("tmpfs"), 0, c.String("size=64k"))
	c.Add("make a directory", syscall.SYS_MKDIRAT, ^uintptr(99), c.String("/mnt/made"), 0o755)
	mnt, err := MountNamespace(user, &c)
	require.NoError(t, err)
	defer mnt.Close()
	own, err := os.Readlink("/proc/self/ns/mnt")
	require.NoError(t, err)
	made, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(mnt.Fd())))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(made, "mnt:["), made)
	assert.NotEqual(t, own, made)

	var enter Calls
	enter.Add("enter it", sysSetns, mnt.Fd(), syscall.CLONE_NEWNS)
	out, ws := run(t, Attr{Path: "/bin/ls", Argv: []string{"ls", "/mnt"}, Cloneflags: syscall.CLONE_NEWPID, JoinUser: user, JoinNet: net, Setup: &enter})
	require.True(t, ws.Exited() && ws.ExitStatus() == 0, "%v: %s", ws, out)
	assert.Equal(t, "made\n", out)

	var bad Calls
	bad.Add("make a directory where none can be", syscall.SYS_MKDIRAT, ^uintptr(99), bad.String("/nonexistent/x"), 0o755)
	_, err = MountNamespace(user, &bad)
	var failed *CallError
	require.ErrorAs(t, err, &failed)
	assert.Equal(t, "make a directory where none can be", failed.Call)
	assert.ErrorIs(t, err, syscall.ENOENT)
}
