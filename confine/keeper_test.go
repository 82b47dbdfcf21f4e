//go:build linux

package confine

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/testns"
	"github.com/vtexec/vtexec/internal/vspawn"
)

// keeperWorkspace is a workspace with a protected .envrc holding "keep",
// its box's spec, and a directory for keepers' sockets, which the test
// names (KeepNamespacesIn) until it ends.
func keeperWorkspace(t *testing.T) (dir string, spec Spec) {
	t.Helper()
	// Short: a socket's path has at most 107 bytes.
	keep, err := os.MkdirTemp("", "keep")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(keep) })
	KeepNamespacesIn(keep)
	t.Cleanup(func() { KeepNamespacesIn("") })
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".envrc"), []byte("keep\n"), 0o644))
	spec = Spec{ReadWrite: []string{dir}, Protected: []Protected{{Path: filepath.Join(dir, ".envrc")}},
		Limits: Limits{OpenFiles: 512, FileSize: 1 << 30}}
	return dir, spec
}

// startTestKeeper starts a keeper of dir's namespaces, made here as a
// fresh process makes them, asked for the template of spec (a box's);
// it returns once
// the keeper lists it, and the keeper's pid. The keeper is ended (its
// socket removed) when the test ends, and must end then.
func startTestKeeper(t *testing.T, dir string, spec Spec) int {
	t.Helper()
	up := &vspawn.Calls{}
	require.NoError(t, addLoopbackUp(up))
	user, net, err := vspawn.Namespaces(os.Getuid(), os.Getgid(), up)
	require.NoError(t, err)
	defer user.Close()
	defer net.Close()
	path := keeperSocket(dir)
	require.NotEmpty(t, path)
	started := keeperStarts.Load()
	require.True(t, startKeeper(dir, path, user, net, []keeperRequest{{Spec: &spec, Mode: ModeRequired}}))
	require.Equal(t, started+1, keeperStarts.Load())
	var pid int
	require.Eventually(t, func() bool {
		d := dialKeeperOf(dir, keeperSocket(dir))
		if d.user == nil {
			return false
		}
		d.user.Close()
		d.net.Close()
		pid = d.index.PID
		return len(d.index.Templates) == 1 && d.index.Templates[0].Key == SpecKey(spec, ModeRequired)
	}, 10*time.Second, 5*time.Millisecond, "the keeper lists the template")
	t.Cleanup(func() {
		os.Remove(path)
		assert.Eventually(t, func() bool { return unix.Kill(pid, 0) != nil }, 5*time.Second, 20*time.Millisecond, "the keeper ends once its socket is gone")
		_, err := os.Stat(indexPath(path))
		assert.True(t, os.IsNotExist(err), "the keeper removes its index: %v", err)
	})
	return pid
}

// sortedLines are out's distinct lines, sorted: a template's copy shows
// the template's /proc and /dev/shm under the program's own.
func sortedLines(out string) []string {
	l := strings.Split(out, "\n")
	slices.Sort(l)
	return slices.Compact(l)
}

// A fresh process's box that takes its workspace's namespaces and
// template from the keeper confines its program exactly as one that
// builds them, and the next program finds nothing the one before left
// in /dev/shm.
func TestKeeperTemplateConfinesAsDirect(t *testing.T) {
	if !testns.Unprivileged(t) {
		return // as root namespaces are kept as files (persist_linux.go)
	}
	require.True(t, directStart && userNamespacesAllowed(), "programs start directly here")
	dir, spec := keeperWorkspace(t)
	b := openBox(t, spec)
	direct := probeBox(t, b, dir)
	startTestKeeper(t, dir, b.spec) // as the box has it (with its memory's bound)

	fromKeeper := func(t *testing.T, cmd *exec.Cmd) string {
		d := dialKeeperOf(dir, keeperSocket(dir))
		require.NotNil(t, d.user, "the keeper's namespaces")
		b := openBox(t, spec)
		b.shared.mu.Lock()
		b.shared.user, b.shared.net = d.user, d.net
		b.shared.mu.Unlock()
		got, starts := keeperTemplatesGot.Load(), templateStarts.Load()
		b.keeperTemplate(d, false)
		require.Equal(t, got+1, keeperTemplatesGot.Load(), "the box took the keeper's template")
		cmd.Dir = dir
		out, err := runOut(t, b, cmd, StartOptions{})
		require.NoError(t, err, out)
		assert.Equal(t, starts+1, templateStarts.Load(), "the program started from the template")
		return out
	}
	out := fromKeeper(t, exec.Command("/bin/sh", "-c", boxProbe))
	assert.Equal(t, sortedLines(direct), sortedLines(out), "the direct box and the keeper template's copy")
	data, err := os.ReadFile(filepath.Join(dir, ".envrc"))
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(data), "the protected .envrc")

	out = fromKeeper(t, exec.Command("/bin/ls", "-A", "/dev/shm"))
	assert.Equal(t, "", out, "what the program before left in /dev/shm")
}

// A keeper is one of the user's processes in the user's own namespace:
// an index naming a process in another — a box's program, which can
// hold its box's namespaces and, with the state directory inside its
// workspace, write an index — is not followed, though the namespaces it
// names would pass every other check.
func TestKeeperIndexOfABoxedProgramIsRefused(t *testing.T) {
	if !testns.Unprivileged(t) {
		return
	}
	dir, spec := keeperWorkspace(t)
	b := openBox(t, spec)
	cmd := exec.Command("/bin/sh", "-c", "exec 3</proc/self/ns/user 4</proc/self/ns/net 5</proc/self/ns/mnt; echo ready; exec sleep 30")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p, err := b.Start(cmd, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cmd.Process.Kill()
		p.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	pid := cmd.Process.Pid

	held := func(fd int) heldNS {
		var st syscall.Stat_t
		require.NoError(t, syscall.Stat("/proc/"+strconv.Itoa(pid)+"/fd/"+strconv.Itoa(fd), &st))
		return heldNS{FD: fd, Ino: st.Ino}
	}
	ix := keeperIndex{PID: pid, User: held(3), Net: held(4),
		Templates: []keeperTemplate{{Key: SpecKey(spec, ModeRequired), NS: held(5)}}}
	path := keeperSocket(dir)
	require.NotEmpty(t, path)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	data, err := json.Marshal(ix)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(indexPath(path), data, 0o600))

	// What the check guards: the boxed program's namespaces open, are of
	// this user and own each other, as a keeper's would.
	user, net := openKeeperNamespaces(ix)
	require.NotNil(t, user, "the boxed program's namespaces open as a keeper's")
	mnt := openKept(pid, ix.Templates[0].NS, unix.CLONE_NEWNS)
	require.NotNil(t, mnt)
	assert.True(t, ownedBy(mnt, unix.CLONE_NEWNS, user))
	user.Close()
	net.Close()
	mnt.Close()

	assert.Equal(t, uint32(os.Getuid()), processUID(pid), "the boxed program is this user's")
	assert.False(t, sameUserNamespace(int32(pid), processUID(pid)), "the boxed program is in a user namespace of its own")
	assert.True(t, sameUserNamespace(int32(os.Getpid()), processUID(os.Getpid())))
	d := dialKeeperOf(dir, keeperSocket(dir))
	assert.Nil(t, d.user, "an index naming a boxed program was followed")
}

// An index whose namespaces are no longer those it names (a descriptor
// number reused for another namespace) is not followed.
func TestKeeperIndexOfAnotherNamespaceIsRefused(t *testing.T) {
	if !testns.Unprivileged(t) {
		return
	}
	dir, spec := keeperWorkspace(t)
	pid := startTestKeeper(t, dir, openBox(t, spec).spec)
	d := dialKeeperOf(dir, keeperSocket(dir))
	require.NotNil(t, d.user)
	d.user.Close()
	d.net.Close()
	ix := d.index
	ix.Templates[0].NS.Ino++
	assert.Nil(t, openKept(pid, ix.Templates[0].NS, unix.CLONE_NEWNS), "a template of another inode")
	ix.Templates[0].NS = ix.Net
	assert.Nil(t, openKept(pid, ix.Templates[0].NS, unix.CLONE_NEWNS), "a network namespace for a template")
	ix.User.Ino++
	user, _ := openKeeperNamespaces(ix)
	assert.Nil(t, user, "a user namespace of another inode")
}
