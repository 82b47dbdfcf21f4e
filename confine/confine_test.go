//go:build linux

package confine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/testns"
)

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": DefaultMode(), "required": ModeRequired, "best-effort": ModeBestEffort, "off": ModeOff} {
		got, err := ParseMode(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseMode("on")
	assert.Error(t, err)
}

// command runs in the box's first read-write directory, as vtexec's
// commands run in the workspace.
func command(spec Spec, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = spec.ReadWrite[0]
	return cmd
}

func openBox(t *testing.T, spec Spec) *Box {
	b, err := Open(spec, ModeRequired)
	require.NoError(t, err)
	t.Cleanup(func() { b.CloseLast() })
	return b
}

func nsOf(t *testing.T, pid int) string {
	link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
	require.NoError(t, err)
	return link
}

// The processes of one pipeline share the PID namespace of its leader
// (as root; without root each has its own), which is not vtexec's.
func TestPipelineSharesTheLeadersNamespace(t *testing.T) {
	spec := Spec{ReadWrite: []string{t.TempDir()}}
	b := openBox(t, spec)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	leaderCmd := command(spec, "/bin/cat")
	leaderCmd.Stdin = r
	leader, err := b.Start(leaderCmd, nil)
	require.NoError(t, err)
	joinerCmd := command(spec, "/bin/sleep", "5")
	joinerCmd.Stdout = w
	joiner, err := b.Start(joinerCmd, leader)
	require.NoError(t, err)
	assert.NotEqual(t, nsOf(t, os.Getpid()), nsOf(t, leader.Pid()))
	assert.NotEqual(t, nsOf(t, os.Getpid()), nsOf(t, joiner.Pid()))
	if fullRoot() {
		assert.Equal(t, nsOf(t, leader.Pid()), nsOf(t, joiner.Pid()))
	} // else each process has namespaces of its own (see helper_linux.go)
	r.Close()
	w.Close()
	require.NoError(t, leader.Signal(9))
	leader.Wait()
	if !fullRoot() {
		joiner.Signal(9)
		joiner.Wait()
		return
	}
	// The joiner (sleep) dies with the leader's namespace.
	assert.Error(t, joiner.Wait(), "the joiner outlived its pipeline's leader")
}

// Joining the namespace of a leader that has exited is ErrPipelineEnded
// as root; without root every process has namespaces of its own, so the
// late process simply runs.
func TestJoiningAnEndedPipeline(t *testing.T) {
	spec := Spec{ReadWrite: []string{t.TempDir()}}
	b := openBox(t, spec)
	leader, err := b.Start(command(spec, "/bin/true"), nil)
	require.NoError(t, err)
	require.NoError(t, leader.Wait())
	late, err := b.Start(command(spec, "/bin/echo", "late"), leader)
	if !fullRoot() {
		require.NoError(t, err)
		assert.NoError(t, late.Wait())
		return
	}
	assert.True(t, errors.Is(err, ErrPipelineEnded), "%v", err)
}

// A pipeline's first program is waited for by its caller's Wait, not
// by the thread that started it (see awaitStarted); one that has exited
// and is not waited for yet has ended all the same for a program that
// would join it.
func TestJoiningAnEndedPipelineNotYetWaitedFor(t *testing.T) {
	spec := Spec{ReadWrite: []string{t.TempDir()}}
	b := openBox(t, spec)
	leader, err := b.Start(command(spec, "/bin/true"), nil)
	require.NoError(t, err)
	lp := leader.(*boxProcess)
	require.Eventually(t, lp.exited, 10*time.Second, time.Millisecond, "the leader has exited")
	select {
	case <-lp.done:
		t.Fatal("waited for before its caller's Wait")
	default:
	}
	late, err := b.Start(command(spec, "/bin/echo", "late"), leader)
	if !fullRoot() {
		require.NoError(t, err)
		assert.NoError(t, late.Wait())
	} else {
		assert.True(t, errors.Is(err, ErrPipelineEnded), "%v", err)
	}
	require.NoError(t, leader.Wait())
	assert.True(t, lp.exited())
}

func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	spec := Spec{ReadWrite: []string{dir}, Limits: Limits{FileSize: 4096}}
	b := openBox(t, spec)
	// The limits are set just after exec: the program waits a moment,
	// as any program that loads libraries does, before it writes.
	run := func(size string) error {
		cmd := command(spec, "/bin/sh", "-c", "sleep 0.05; exec truncate -s "+size+" f")
		p, err := b.Start(cmd, nil)
		require.NoError(t, err)
		return p.Wait()
	}
	assert.NoError(t, run("4096"))
	assert.Error(t, run("1M"), "a file grew past the limit")
}

func TestReadOutsideIsDenied(t *testing.T) {
	inside, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("s"), 0o644))
	spec := Spec{ReadWrite: []string{inside}}
	b := openBox(t, spec)
	p, err := b.Start(command(spec, "/bin/cat", secret), nil)
	require.NoError(t, err)
	assert.Error(t, p.Wait())
	q, err := StartDirect(exec.Command("/bin/cat", secret), nil)
	require.NoError(t, err)
	assert.NoError(t, q.Wait(), "the same read works unconfined")
}

func TestOffReportsNothingApplied(t *testing.T) {
	b, err := Open(Spec{}, ModeOff)
	require.NoError(t, err)
	r := b.Report()
	assert.Equal(t, ModeOff, r.Mode)
	assert.Equal(t, 0, r.Landlock)
	assert.Equal(t, "unconfined", r.Filesystem)
	assert.False(t, r.PIDNamespace)
}

// As root, the process count is bounded by the box's pids cgroup, which
// RLIMIT_NPROC is not; without root, by RLIMIT_NPROC.
func TestProcessLimit(t *testing.T) {
	spec := Spec{ReadWrite: []string{t.TempDir()}, Limits: Limits{Processes: 8}}
	b := openBox(t, spec)
	if fullRoot() {
		require.True(t, b.Report().PidsCgroup, "%v", b.Report().Missing)
	}
	cmd := command(spec, "/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do sleep 2 & done; wait")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	group, err := b.NewGroup()
	require.NoError(t, err)
	defer group.Close()
	p, err := b.StartWith(cmd, nil, StartOptions{Group: group})
	require.NoError(t, err)
	p.Wait()
	assert.Contains(t, stderr.String(), "fork", "16 processes started under a limit of 8")
}

// As root a box's mount namespace is kept between boxes (and processes)
// of the same spec, and still protects when entered again; a changed
// protected path gets a new one.
func TestMountNamespaceIsKept(t *testing.T) {
	if !fullRoot() {
		// Without root each program builds its own view in the helper.
		t.Log("not root: nothing is kept")
		return
	}
	ws := t.TempDir()
	spec := Spec{ReadWrite: []string{ws}, Placeholders: true, Protected: []Protected{{Path: filepath.Join(ws, ".claude"), Dir: true}}}
	write := func() error {
		b := openBox(t, spec)
		p, err := b.Start(command(spec, "/usr/bin/touch", ".claude/x"), nil)
		require.NoError(t, err)
		err = p.Wait()
		b.Close()
		return err
	}
	before := mountBuilds.Load()
	assert.Error(t, write())
	assert.Error(t, write(), "the kept namespace still protects")
	assert.Equal(t, int64(1), mountBuilds.Load()-before, "the second box entered the kept namespace")

	require.NoError(t, os.Remove(filepath.Join(ws, ".claude")))
	require.NoError(t, os.Mkdir(filepath.Join(ws, ".claude"), 0o755))
	assert.Error(t, write())
	assert.Equal(t, int64(2), mountBuilds.Load()-before, "a replaced protected directory gets a namespace of its own")
}

// A program reads the box's own /proc (its status, the uptime), but not
// another process's environment there, not even vtexec's.
func TestProcIsTheBoxsOwn(t *testing.T) {
	spec := Spec{ReadWrite: []string{t.TempDir()}}
	b := openBox(t, spec)
	run := func(args ...string) (string, error) {
		cmd := command(spec, "/bin/cat", args...)
		var out, errs strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errs
		p, err := b.Start(cmd, nil)
		require.NoError(t, err)
		err = p.Wait()
		return out.String() + errs.String(), err
	}
	out, err := run("/proc/self/status", "/proc/uptime")
	assert.NoError(t, err, out)
	assert.Contains(t, out, "Name:\tcat")
	out, err = run("/proc/" + strconv.Itoa(os.Getpid()) + "/environ")
	assert.Error(t, err, "vtexec's environment: %s", out)
}

// fullRoot reads the effective capabilities with capget: it must agree
// with what the kernel prints in /proc/self/status.
func TestFullRootAgreesWithProcStatus(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	uidMap, err := os.ReadFile("/proc/self/uid_map")
	require.NoError(t, err)
	want := false
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			require.NoError(t, err)
			want = os.Geteuid() == 0 && strings.Join(strings.Fields(string(uidMap)), " ") == "0 0 4294967295" && caps&(1<<21) != 0
		}
	}
	assert.Equal(t, want, fullRoot())
}

// The report names each protected name that does not exist once, in one
// entry per kind (directories, files), and each that exists among the
// protected: a run's answer does not repeat a sentence per name. Where no
// mount namespace can be made, one entry says that none is protected.
func TestReportGroupsAbsentProtectedNames(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(ws, ".vscode"), 0o755))
	var spec Spec
	spec.ReadWrite = []string{ws}
	for _, name := range []string{".claude", ".idea", ".vscode"} {
		spec.Protected = append(spec.Protected, Protected{Path: filepath.Join(ws, name), Dir: true})
	}
	for _, name := range []string{".envrc", ".mcp.json"} {
		spec.Protected = append(spec.Protected, Protected{Path: filepath.Join(ws, name)})
	}
	// Best effort: where nothing protects them, the box still opens and
	// says so.
	b, err := Open(spec, ModeBestEffort)
	require.NoError(t, err)
	t.Cleanup(func() { b.CloseLast() })
	r := b.Report()
	var entries []string
	for _, m := range r.Missing {
		if strings.Contains(m, "protected names") {
			entries = append(entries, m)
		}
	}
	if !fullRoot() && !userNamespacesAllowed() {
		require.Len(t, entries, 1, "one entry says no name is protected: %q", r.Missing)
		assert.Contains(t, entries[0], "need a mount namespace")
		assert.Empty(t, r.Protected)
		return
	}
	assert.Contains(t, r.Protected, filepath.Join(ws, ".vscode"))
	require.Len(t, entries, 2, "one entry for absent directories, one for absent files: %q", r.Missing)
	dirs, files := entries[0], entries[1]
	for _, name := range []string{".claude", ".idea"} {
		assert.Contains(t, dirs, filepath.Join(ws, name))
	}
	assert.Contains(t, dirs, "placeholders = true")
	for _, name := range []string{".envrc", ".mcp.json"} {
		assert.Contains(t, files, filepath.Join(ws, name))
	}
	assert.Contains(t, files, "placeholder_files = true")
	assert.NotContains(t, dirs+files, filepath.Join(ws, ".vscode"), "an existing name is protected, not missing")
}

// A root of the spec that does not exist fails the box when it opens,
// as root and without (where each program's helper builds the ruleset),
// with Landlock or without, and no box is left to run anything.
func TestOpenRefusesAMissingRoot(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	for _, spec := range []Spec{
		{ReadWrite: []string{t.TempDir(), missing}},
		{ReadWrite: []string{t.TempDir()}, ReadOnly: []string{missing}},
	} {
		b, err := Open(spec, ModeBestEffort)
		require.Error(t, err)
		assert.Nil(t, b)
		assert.ErrorIs(t, err, os.ErrNotExist)
		assert.Contains(t, err.Error(), missing)
	}
}

// Without root and without user namespaces only Landlock confines: the
// box has no root of its own, and its rules name each system file a
// program reads, not the machine's others.
func TestLandlockAloneReadsTheSystemFilesOnly(t *testing.T) {
	if !testns.Unprivileged(t) {
		return // as root a box always has a mount namespace
	}
	usernsOnce.Do(func() {})
	was := usernsOK
	usernsOK = false
	t.Cleanup(func() { usernsOK = was })
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	require.NoError(t, os.WriteFile(outside, []byte("o"), 0o644))
	spec := Spec{ReadWrite: []string{dir}}
	b, err := Open(spec, ModeBestEffort)
	require.NoError(t, err)
	t.Cleanup(func() { b.CloseLast() })
	require.False(t, b.Report().PIDNamespace, "user namespaces were not turned off")
	require.Equal(t, "confined", b.Report().Filesystem)
	run := func(name string, args ...string) error {
		p, err := b.Start(command(spec, name, args...), nil)
		require.NoError(t, err)
		return p.Wait()
	}
	assert.NoError(t, run("/bin/cat", "/etc/passwd"), "a system file programs read")
	assert.NoError(t, run("/bin/sh", "-c", "echo x > f"), "the workspace")
	assert.Error(t, run("/bin/cat", outside), "a file outside")
	assert.Error(t, run("/bin/ls", "/etc"), "listing /etc: only its files are granted")
	assert.Error(t, run("/bin/sh", "-c", "echo x > "+outside), "writing outside")
}
