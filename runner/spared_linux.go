package runner

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// endsOnSIGTERM reports whether the SIGTERM just sent to a stopped run
// would have ended all of it anywhere else, though it leaves some of it
// running in its box: no process of the run (the programs roots and
// their descendants) catches, ignores or blocks SIGTERM, and one of them
// is the first process of a PID namespace, which the kernel spares a
// signal it has no handler for. Killing the run at once then ends it as
// SIGTERM would; a run with a process that handles SIGTERM keeps its
// grace, since killing a namespace's first process would end that one
// too. Where a process's children cannot be read, it keeps its grace.
func endsOnSIGTERM(roots []int) bool {
	spared := false
	seen := map[int]bool{}
	queue := append([]int(nil), roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if len(seen) > maxLookedAt {
			return false
		}
		first, handles, ok := sigtermState(pid)
		if !ok {
			continue // ended
		}
		if handles {
			return false
		}
		spared = spared || first
		kids, ok := childrenOf(pid)
		if !ok {
			return false
		}
		queue = append(queue, kids...)
	}
	return spared
}

// maxLookedAt bounds the processes endsOnSIGTERM reads: past it, the run
// keeps its grace.
const maxLookedAt = 512

// sigtermState reads /proc/PID/status: whether pid is the first process
// of a PID namespace, and whether it catches, ignores or blocks SIGTERM;
// ok is false when pid is gone.
func sigtermState(pid int) (first, handles, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false, false, false
	}
	var mask uint64
	for line := range bytes.Lines(b) {
		name, value, found := bytes.Cut(bytes.TrimRight(line, "\n"), []byte(":\t"))
		if !found {
			continue
		}
		switch string(name) {
		case "NSpid": // its pid in each namespace, the innermost last
			ids := bytes.Fields(value)
			first = len(ids) > 1 && string(ids[len(ids)-1]) == "1"
		case "SigIgn", "SigCgt", "SigBlk":
			m, err := strconv.ParseUint(string(value), 16, 64)
			if err != nil {
				return false, true, true // unreadable: as if it handled it
			}
			mask |= m
		}
	}
	return first, mask&(1<<(syscall.SIGTERM-1)) != 0, true
}

// childrenOf lists pid's children from /proc/PID/task/*/children.
func childrenOf(pid int) ([]int, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, os.IsNotExist(err) // gone: no children left to mind
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if os.IsNotExist(err) {
			if _, serr := os.Stat(dir + "/" + t.Name()); os.IsNotExist(serr) {
				continue // the thread ended
			}
			return nil, false // a kernel without the children file
		}
		if err != nil {
			return nil, false
		}
		for _, f := range bytes.Fields(b) {
			if k, err := strconv.Atoi(string(f)); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids, true
}
