//go:build !windows

package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// newWS returns a workspace rooted in a fresh temporary directory.
func newWS(t testing.TB) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(t.TempDir())
	require.NoError(t, err)
	return ws
}

// command returns a plan.Cmd running argv[0], found on the test's PATH, in dir.
func command(t testing.TB, dir string, argv ...string) plan.Cmd {
	t.Helper()
	prog, err := exec.LookPath(argv[0])
	require.NoError(t, err)
	return plan.Cmd{Argv: argv, Program: prog, Dir: dir}
}

// withRedirects returns c with rs as its redirects.
func withRedirects(c plan.Cmd, rs ...plan.Redirect) plan.Cmd {
	c.Redirects = rs
	return c
}

// grouped marks steps as one compound command, group id (at top level).
func grouped(id int, steps ...plan.Step) []plan.Step {
	for i := range steps {
		steps[i].Group = id
	}
	return steps
}

// elseOf marks a group's steps as an if's else branch, whose then
// branch is the group before it; planOf reads the mark.
func elseOf(steps []plan.Step) []plan.Step {
	for i := range steps {
		steps[i].Group = -steps[i].Group
	}
	return steps
}

// step returns a step joined by op running cmds as one pipeline.
func step(op plan.Op, cmds ...plan.Cmd) plan.Step {
	return plan.Step{Op: op, Pipeline: plan.Pipeline{Cmds: cmds}}
}

// planOf returns a plan of the steps, with a top-level group for each
// group id they name (see grouped and elseOf).
func planOf(steps ...plan.Step) *plan.Plan {
	p := &plan.Plan{Steps: steps}
	for i, st := range steps {
		id := max(st.Group, -st.Group)
		for len(p.Groups) < id {
			p.Groups = append(p.Groups, plan.Group{})
		}
		if st.Group < 0 {
			p.Groups[id-1].ElseOf = id - 1
			p.Steps[i].Group = id
		}
	}
	return p
}

// runPlan runs p in ws with opts and requires no error.
func runPlan(t testing.TB, p *plan.Plan, ws *workspace.Workspace, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), p, ws, opts)
	require.NoError(t, err)
	return res
}

// readFile returns the contents of path, failing the test on error.
func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// pids parses whitespace-separated pids.
func pids(t testing.TB, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(s) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		out = append(out, pid)
	}
	require.NotEmpty(t, out)
	return out
}

// procState returns the state letter and process group of pid from
// /proc/PID/stat, or ok=false if there is no such process.
func procState(pid int) (state byte, pgrp int, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 3 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(fields[2])
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}

// alive reports whether pid is a live process. A zombie is dead: in a
// container, PID 1 may never reap orphans.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	state, _, ok := procState(pid)
	return ok && state != 'Z'
}

// groupAlive reports whether any live process is in process group pgid.
func groupAlive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pgrp, ok := procState(pid)
		if ok && pgrp == pgid && state != 'Z' {
			return true
		}
	}
	return false
}

// killOnCleanup kills pid when the test ends, in case the runner did not.
func killOnCleanup(t testing.TB, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}

// join is filepath.Join, short.
func join(elem ...string) string { return filepath.Join(elem...) }
