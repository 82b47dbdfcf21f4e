//go:build linux

package confine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func openBox(t *testing.T, spec Spec) *Box {
	b, err := Open(spec, ModeRequired)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

func nsOf(t *testing.T, pid int) string {
	link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
	require.NoError(t, err)
	return link
}

// The processes of one pipeline share the PID namespace of its leader,
// which is not vtexec's.
func TestPipelineSharesTheLeadersNamespace(t *testing.T) {
	b := openBox(t, Spec{ReadWrite: []string{t.TempDir()}})
	r, w, err := os.Pipe()
	require.NoError(t, err)
	leaderCmd := exec.Command("/bin/cat")
	leaderCmd.Stdin = r
	leader, err := b.Start(leaderCmd, nil)
	require.NoError(t, err)
	joinerCmd := exec.Command("/bin/sleep", "5")
	joinerCmd.Stdout = w
	joiner, err := b.Start(joinerCmd, leader)
	require.NoError(t, err)
	assert.Equal(t, nsOf(t, leader.Pid()), nsOf(t, joiner.Pid()))
	assert.NotEqual(t, nsOf(t, os.Getpid()), nsOf(t, leader.Pid()))
	r.Close()
	w.Close()
	// The joiner (sleep) dies with the leader's namespace.
	require.NoError(t, leader.Signal(9))
	leader.Wait()
	err = joiner.Wait()
	assert.Error(t, err, "the joiner outlived its pipeline's leader")
}

func TestJoiningAnEndedPipeline(t *testing.T) {
	b := openBox(t, Spec{ReadWrite: []string{t.TempDir()}})
	leader, err := b.Start(exec.Command("/bin/true"), nil)
	require.NoError(t, err)
	require.NoError(t, leader.Wait())
	_, err = b.Start(exec.Command("/bin/echo", "late"), leader)
	assert.True(t, errors.Is(err, ErrPipelineEnded), "%v", err)
}

func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	b := openBox(t, Spec{ReadWrite: []string{dir}, Limits: Limits{FileSize: 4096}})
	run := func(size string) error {
		cmd := exec.Command("/usr/bin/truncate", "-s", size, filepath.Join(dir, "f"))
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
	b := openBox(t, Spec{ReadWrite: []string{inside}})
	p, err := b.Start(exec.Command("/bin/cat", secret), nil)
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
