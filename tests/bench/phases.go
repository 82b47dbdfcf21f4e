package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vtexec/vtexec/internal/phase"
)

// phaseBinary is the vtexec built with the vtexecphases tag (-phases).
const phaseBinary = "vtexec-phases"

// phaseRow is one mark of a fresh run: how long after the one before it
// (the first: after the process was started) it came, median and spread.
type phaseRow struct {
	name string
	ms   []float64 // one a run that reached it
}

// phases times runs fresh `vtexec run -- 'cat file.txt'` of the vtexec
// built to mark its phases (internal/phase), each in new state
// directories, and returns each mark's time after the one before it, and
// the process's end after the last.
func phases(bins, ws, home string, runs int) ([]*phaseRow, error) {
	if phase.Clock() == 0 {
		return nil, fmt.Errorf("-phases: internal/phase marks nothing on this platform")
	}
	vt := filepath.Join(bins, phaseBinary)
	var rows []*phaseRow
	byName := map[string]*phaseRow{}
	row := func(name string) *phaseRow {
		if r := byName[name]; r != nil {
			return r
		}
		r := &phaseRow{name: name}
		byName[name] = r
		rows = append(rows, r)
		return r
	}
	for i := range runs + 2 { // the first two warm the page cache
		env, cleanup, err := freshEnv(home)
		if err != nil {
			return nil, err
		}
		var marks string // beside the new state directories, removed with them
		for _, kv := range env {
			if dir, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
				marks = filepath.Join(filepath.Dir(dir), "phases")
			}
		}
		if marks == "" {
			cleanup()
			return nil, fmt.Errorf("-phases: no state directory to write the marks beside")
		}
		cmd := exec.Command(vt, "run", "--", "cat file.txt")
		var out bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = ws, append(env, "VTEXEC_PHASES="+marks), &out, &out
		start := phase.Clock()
		err = cmd.Run()
		end := phase.Clock()
		data, readErr := os.ReadFile(marks)
		cleanup()
		if err != nil {
			return nil, fmt.Errorf("%s run: %v\n%s", phaseBinary, err, tail(out.Bytes()))
		}
		if readErr != nil {
			return nil, fmt.Errorf("%s wrote no marks (built without the vtexecphases tag?): %v", phaseBinary, readErr)
		}
		if i < 2 {
			continue
		}
		prev, seen := start, map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			ns, name, ok := strings.Cut(l, " ")
			t, err := strconv.ParseInt(ns, 10, 64)
			if !ok || err != nil {
				return nil, fmt.Errorf("%s: a mark line %q", phaseBinary, l)
			}
			if seen[name] { // a later program's: the first of each is timed
				continue
			}
			seen[name] = true
			r := row(name)
			r.ms = append(r.ms, float64(t-prev)/1e6)
			prev = t
		}
		r := row("exit")
		r.ms = append(r.ms, float64(end-prev)/1e6)
	}
	return rows, nil
}

// printPhases prints each mark's median time after the one before it.
func printPhases(w io.Writer, rows []*phaseRow, runs int) {
	fmt.Fprintf(w, "\nphases of a fresh run -- 'cat file.txt' (%s, median of %d; each after the one before; main: after the process was started):\n", phaseBinary, runs)
	total := 0.0
	for _, r := range rows {
		s := slices.Clone(r.ms)
		slices.Sort(s)
		m := med(s)
		total += m
		note := ""
		if len(r.ms) < runs {
			note = fmt.Sprintf("  (in %d of %d runs)", len(r.ms), runs)
		}
		fmt.Fprintf(w, "  %-10s %7.3f ms  [%.3f–%.3f]%s\n", r.name, m, s[0], s[len(s)-1], note)
	}
	fmt.Fprintf(w, "  %-10s %7.3f ms  (sum of the medians)\n", "total", total)
}
