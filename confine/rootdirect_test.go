//go:build linux

package confine

import (
	"bufio"
	"fmt"
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
)

// rootDirectSpec is a workspace with a protected .envrc and a run's
// directory under /dev/shm (which each program's own /dev/shm shows
// again), with limits.
func rootDirectSpec(t *testing.T) (Spec, string) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".envrc"), []byte("keep\n"), 0o644))
	run, err := os.MkdirTemp(PrivateShm, "vtexec-test-run-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(run) })
	require.NoError(t, os.WriteFile(filepath.Join(run, "seen"), []byte("run dir\n"), 0o644))
	return Spec{ReadWrite: []string{dir, run}, Protected: []Protected{{Path: filepath.Join(dir, ".envrc")}},
		Limits: Limits{OpenFiles: 512, FileSize: 1 << 30, Processes: 200}}, run
}

// As root a pipeline's first program started on the process's main
// thread confines itself in its child (rootdirect_linux.go): it is
// confined as one started from a thread that entered the box — the same
// mounts, capabilities, filter, limits and Landlock's answers, in the
// run's cgroups, the first process of a PID namespace of its own, the
// run's directory under /dev/shm shown again in a /dev/shm of its own —
// and one started off the main thread is started from such a thread.
func TestRootDirectStartConfinesAsAThread(t *testing.T) {
	spec, run := rootDirectSpec(t)
	dir := spec.ReadWrite[0]
	b := openBox(t, spec)
	group, err := b.NewGroup()
	require.NoError(t, err)
	defer group.Close()
	probeCmd := func() *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", "ls -A /dev/shm | sed 's/^/in shm: /'\n"+boxProbe+"cat /proc/self/cgroup\necho pid $$\ncat "+run+"/seen\n")
		cmd.Dir = dir
		return cmd
	}
	sorted := func(out string) string {
		l := strings.Split(out, "\n")
		slices.Sort(l)
		return strings.Join(l, "\n")
	}
	if !b.root || b.cgroupsV2() || !rootDirect {
		before := rootDirectStarts.Load()
		_, err := runOutOnMainThread(t, b, probeCmd(), StartOptions{Group: group})
		require.NoError(t, err)
		assert.Equal(t, before, rootDirectStarts.Load(), "no direct start without root, vspawn or cgroup v1")
		return
	}

	direct := rootDirectStarts.Load()
	fromThread, err := runOut(t, b, probeCmd(), StartOptions{Group: group})
	require.NoError(t, err, fromThread)
	require.Equal(t, direct, rootDirectStarts.Load(), "off the main thread: started from a thread that entered the box")

	fromMain, err := runOutOnMainThread(t, b, probeCmd(), StartOptions{Group: group})
	require.NoError(t, err, fromMain)
	require.Equal(t, direct+1, rootDirectStarts.Load(), "on the main thread: started directly")

	assert.Equal(t, sorted(fromThread), sorted(fromMain), "a program started from a thread and directly")
	for _, want := range []string{"pid 1", "shm-writable", "protected-refused", "run dir", "NoNewPrivs:\t1", "Seccomp:\t2", "CapBnd:\t0000000000000000", "own-processes-only"} {
		assert.Contains(t, fromMain, want)
	}
	assert.NotContains(t, fromMain, "in shm: probe", "a program's /dev/shm is its own: the one before left nothing there")
	assert.Contains(t, fromMain, "in shm: "+filepath.Base(run), "the run's directory shown again")
	data, err := os.ReadFile(filepath.Join(dir, ".envrc"))
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(data), "the protected .envrc")
}

// runOutOnMainThread is runOut with cmd started on the main thread.
func runOutOnMainThread(t *testing.T, b *Box, cmd *exec.Cmd, opts StartOptions) (string, error) {
	var out string
	var werr, err error
	dir := t.TempDir()
	onMainThreadDo(func() { out, werr, err = runCaptured(b, cmd, opts, dir, func() {}) })
	require.NoError(t, err)
	return out, werr
}

// A program started directly fails as one started from a thread does
// when it cannot be executed, and leaves nothing running; where no
// direct start applies (without root, vspawn or cgroup v1) the main
// thread's start is a thread's, and fails the same way.
func TestRootDirectStartFailures(t *testing.T) {
	spec, _ := rootDirectSpec(t)
	b := openBox(t, spec)
	direct := b.root && rootDirect && !b.cgroupsV2()
	// The box's mount namespace is built by a first start from a thread.
	_, err := runOut(t, b, command(spec, "/bin/true"), StartOptions{})
	require.NoError(t, err)
	for _, tc := range []struct{ name, path string }{
		{"missing", filepath.Join(spec.ReadWrite[0], "no-such-program")},
		{"not executable", filepath.Join(spec.ReadWrite[0], ".envrc")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, threadErr := b.StartWith(command(spec, tc.path), nil, StartOptions{})
			before := rootDirectStarts.Load()
			var mainErr error
			onMainThreadDo(func() { _, mainErr = b.StartWith(command(spec, tc.path), nil, StartOptions{}) })
			require.Error(t, threadErr)
			require.Error(t, mainErr)
			want := before
			if direct {
				want++
			}
			assert.Equal(t, want, rootDirectStarts.Load(), "the start on the main thread was the child's only where a direct start applies")
			assert.Equal(t, threadErr.Error(), mainErr.Error())
		})
	}
}

// directHolderEnv makes the test binary the holder of
// TestRootDirectProgramDiesWithVtexec.
const directHolderEnv = "CONFINE_TEST_DIRECT_HOLDER"

// directHolder opens a box for the directory the environment names,
// starts a sleep in it from the main thread (a direct start as root),
// prints its pid, whether it started directly and whether a direct
// start applies here, and waits to be killed.
func directHolder() int {
	dir := os.Getenv(directHolderEnv)
	b, err := Open(Spec{ReadWrite: []string{dir}}, ModeRequired)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	// The mount namespace is built from a thread first.
	cmd := exec.Command("/bin/true")
	cmd.Dir = dir
	first, err := b.Start(cmd, nil)
	if err == nil {
		err = first.Wait()
	}
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	before := rootDirectStarts.Load()
	cmd = exec.Command("/bin/sleep", "60")
	cmd.Dir = dir
	p, err := b.Start(cmd, nil)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(p.Pid(), rootDirectStarts.Load() == before+1, b.root && rootDirect && !b.cgroupsV2())
	select {}
}

// A program started directly dies with vtexec: its parent-death signal
// belongs to the main thread, which ends only with the process. Where no
// direct start applies, the program the main thread started from a
// thread dies with vtexec too.
func TestRootDirectProgramDiesWithVtexec(t *testing.T) {
	dir := t.TempDir()
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), directHolderEnv+"="+dir)
	t.Cleanup(func() {
		// The killed holder could not remove its box's cgroups.
		for _, ctl := range []string{"memory", "pids"} {
			if parent, _, err := ownCgroup(ctl); err == nil {
				syscall.Rmdir(cgroupDir(parent, dir))
			}
		}
	})
	out, err := holder.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, holder.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, line)
	fields := strings.Fields(line)
	require.Len(t, fields, 3, line)
	require.Equal(t, fields[2], fields[1], "the sleep started directly exactly where a direct start applies")
	pid, err := strconv.Atoi(fields[0])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, 0), "the sleep runs")

	require.NoError(t, holder.Process.Signal(syscall.SIGKILL))
	holder.Wait()
	assert.Eventually(t, func() bool {
		// Reaped by init once it died; its pid may be reused, but not
		// by a sleep of this test's holder.
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		return err != nil || !strings.HasPrefix(string(data), "/bin/sleep")
	}, 5*time.Second, 10*time.Millisecond, "the program outlived its vtexec")
}
