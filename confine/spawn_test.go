//go:build linux

package confine

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/internal/vspawn"
)

// A box's programs share one network namespace (as root the
// workspace's; without root the first helper's, which the later ones
// join), each with PID and IPC namespaces of its own (and without root a
// mount namespace of its own too); where no namespace can be had they
// run in vtexec's, and the report says so. The programs run side by
// side: a namespace that ended could give its number to the next.
func TestProgramsShareTheBoxsNetworkNamespace(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(Spec{ReadWrite: []string{dir}}, ModeBestEffort)
	require.NoError(t, err)
	t.Cleanup(func() { b.CloseLast() })
	var holds []*os.File
	defer func() {
		for _, h := range holds {
			h.Close()
		}
	}()
	start := func() (map[string]string, Process) {
		in, hold, err := os.Pipe()
		require.NoError(t, err)
		holds = append(holds, hold)
		out, w, err := os.Pipe()
		require.NoError(t, err)
		defer out.Close()
		cmd := exec.Command("/bin/sh", "-c", "for n in net mnt pid ipc user; do echo $n $(readlink /proc/self/ns/$n); done; read x")
		cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin"}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = in, w, w
		p, err := b.StartWith(cmd, nil, StartOptions{})
		in.Close()
		w.Close()
		require.NoError(t, err)
		ns := map[string]string{}
		sc := bufio.NewScanner(out)
		for len(ns) < 5 && sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), " ")
			ns[k] = v
		}
		require.Len(t, ns, 5)
		return ns, p
	}
	first, p1 := start()
	second, p2 := start()
	for _, h := range holds {
		h.Close()
	}
	p1.Wait()
	p2.Wait()
	if !b.root && !b.userns {
		for kind, ns := range first {
			own, err := os.Readlink("/proc/self/ns/" + kind)
			require.NoError(t, err)
			assert.Equal(t, own, ns, "%s: vtexec's, without namespaces", kind)
		}
		assert.False(t, b.Report().PIDNamespace, "the report says there is none")
		return
	}
	if !b.root && !vspawn.Available {
		assert.NotEqual(t, first["net"], second["net"], "without vspawn each helper makes its own")
		return
	}
	assert.Equal(t, first["net"], second["net"], "one network namespace")
	kinds := []string{"pid", "ipc"}
	if b.userns {
		kinds = append(kinds, "mnt")
		assert.Equal(t, first["user"], second["user"], "the helpers' user namespace")
	}
	for _, kind := range kinds {
		assert.NotEqual(t, first[kind], second[kind], "%s: each program's own", kind)
	}
}
