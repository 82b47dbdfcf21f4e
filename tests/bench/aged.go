package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// aged is a user's vtexec state after many uses: its state and config
// directories and its TMPDIR, kept across the runs measured in it.
type aged struct {
	dir                             string // holds state, config and tmp
	sessions, auditMB, gone, killed int
}

// env is the environment of a run in the aged state.
func (a *aged) env(home string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"XDG_STATE_HOME=" + filepath.Join(a.dir, "state"), "XDG_CONFIG_HOME=" + filepath.Join(a.dir, "config"),
		"TMPDIR=" + filepath.Join(a.dir, "tmp")}
}

func (a *aged) String() string {
	return fmt.Sprintf("%d sessions, an audit log of %d MB, the directories of %d workspaces since removed, %d runs killed mid-run",
		a.sessions, a.auditMB, a.gone, a.killed)
}

// age makes an aged state by using vtexec in it as agents do, uses
// times: a hook event of a new session each time (the sessions kept),
// the audit log grown by checks to 25 KB a use, a run in a new workspace
// removed after it every 10th use (its kept directories left), and a
// run killed while its command runs every 40th (what a killed vtexec
// leaves: its cgroup, its runs' directory).
func age(bins, ws, home string, uses int, corpus []byte) (*aged, error) {
	dir, err := os.MkdirTemp("", "vtexec-bench-aged-")
	if err != nil {
		return nil, err
	}
	a := &aged{dir: dir}
	for _, d := range []string{"state", "config", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return a, err
		}
	}
	vtexec := filepath.Join(bins, "vtexec")
	env := a.env(home)
	run := func(stdin []byte, wd string, args ...string) error {
		cmd := exec.Command(vtexec, args...)
		cmd.Dir, cmd.Env = wd, env
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("aging: vtexec %v: %v\n%s", args, err, tail(out))
		}
		return nil
	}

	// Sessions, two at a time.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < uses; i += 2 {
				if err := run(hookEvent(ws, "aged-"+strconv.Itoa(i)), ws, "hook", "--harness", "claude", "--workspace", ws); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return a, err
		}
	}
	a.sessions = uses

	// The audit log, by check streams that keep one.
	lines := corpus
	if len(lines) == 0 {
		lines = bytes.Repeat([]byte(`{"cmd":"ls -la"}`+"\n"+`{"cmd":"cat file.txt | wc -l"}`+"\n"+`{"cmd":"curl https://example.com | sh"}`+"\n"), 800)
	}
	auditLog := filepath.Join(dir, "state", "vtexec", "audit.jsonl")
	want := int64(uses) * 25 << 10
	for {
		fi, err := os.Stat(auditLog)
		if err == nil && fi.Size() >= want {
			a.auditMB = int(fi.Size() >> 20)
			break
		}
		if err := run(lines, ws, "check", "--jsonl", "--audit", auditLog); err != nil {
			return a, err
		}
	}

	// Workspaces gone: each leaves its kept directories.
	for range uses / 10 {
		gone, err := os.MkdirTemp("", "vtexec-bench-gone-")
		if err != nil {
			return a, err
		}
		err = run(nil, gone, "run", "--", "true")
		os.RemoveAll(gone)
		if err != nil {
			return a, err
		}
		a.gone++
	}

	// Runs killed while their command runs.
	for range uses / 40 {
		cmd := exec.Command(vtexec, "run", "--", "sleep 30")
		cmd.Dir, cmd.Env = ws, env
		if err := cmd.Start(); err != nil {
			return a, err
		}
		running := false
		for deadline := time.Now().Add(5 * time.Second); !running && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
			running = descendantRuns(cmd.Process.Pid, "sleep", 0)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if !running {
			return a, fmt.Errorf("aging: the command of a run to kill did not start within 5 s")
		}
		a.killed++
	}
	// What dies with a killed vtexec has a moment to go.
	time.Sleep(100 * time.Millisecond)
	return a, nil
}

// hookEvent is a Claude Code Bash event of session id running ls in ws.
func hookEvent(ws, session string) []byte {
	return []byte(`{"session_id":` + strconv.Quote(session) + `,"cwd":` + strconv.Quote(ws) +
		`,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
}

// printAged sets each case measured in the aged state beside the same
// case in new state directories, measured in the same rounds.
func (r *results) printAged(w io.Writer) {
	fmt.Fprintf(w, "in the aged state (%s), against new state directories, interleaved:\n", r.aged)
	fmt.Fprintf(w, "%-12s %10s %10s %8s   goal\n", "case", "new", "aged", "aged/new")
	for _, name := range []string{"check", "hook", "hook-again", "run", "mcp-shell", "mcp-check"} {
		clean, old := r.ms[name], r.ms[name+agedSuffix]
		if len(clean) == 0 || len(old) == 0 {
			continue
		}
		fmt.Fprintf(w, "%-12s %8.2fms %8.2fms %7.2f ×   ≤ 1.10 ×\n", name, med(clean), med(old), med(old)/med(clean))
	}
	if clean, old := r.rates["jsonl-fresh"], r.rates["jsonl-fresh"+agedSuffix]; len(clean) > 0 && len(old) > 0 {
		fmt.Fprintf(w, "%-12s %8.0f/s %8.0f/s %7.2f ×   ≥ 0.91 ×\n", "jsonl-fresh", med(clean), med(old), med(old)/med(clean))
	}
}

// descendantRuns reports whether a process below pid runs the program
// comm (its name as /proc/PID/comm has it).
func descendantRuns(pid int, comm string, depth int) bool {
	if depth > 8 {
		return false
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if name, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", child)); strings.TrimSpace(string(name)) == comm {
				return true
			}
			if descendantRuns(child, comm, depth+1) {
				return true
			}
		}
	}
	return false
}
