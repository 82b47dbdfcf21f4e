// Command bench measures vtexec the way a user calls it: fresh processes,
// default confinement, the audit log on, fresh state directories, in a
// workspace that is a git repository. In one run, interleaved, it times
//
//   - a Go binary that links vtexec's dependencies and does nothing, `cat`,
//     and fresh `vtexec check -- ls` and `vtexec run -- 'cat file.txt'`,
//     and a fresh `vtexec hook` deciding a Claude Code Bash event, the
//     first of its session (which makes the session's file) and a later
//     one;
//   - the same cat under bwrap (Debian's bubblewrap) with comparable
//     confinement;
//   - `vtexec check --jsonl` over the corpus as one fresh process, and warm;
//   - an MCP shell call of cat and a shell_check call over stdio, against
//     the SDK's no-op tool, back to back; and shell calls of cat with
//     20 ms between them, as an agent's calls come;
//
// and prints medians of -runs runs with min and max, the differences and
// ratios the goals are stated in, the machine's load and vtexec's
// leftover state. As root it measures again as uid 65534. With -aged N
// it first ages a user's state by N uses of vtexec (see age) and times
// each fresh case and the MCP calls in it too, interleaved with the
// same cases in new state directories.
//
// With -phases it also times where a fresh run spends its time, with a
// vtexec built to mark its phases (the vtexecphases tag, internal/phase).
//
//	go run ./tests/bench [-runs 20] [-corpus ../shared/corpus] [-aged 2000] [-phases]
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	runs := flag.Int("runs", 20, "fresh runs of each case (medians of these)")
	corpus := flag.String("corpus", "../shared/corpus", "directory of *.jsonl lines with a \"cmd\" each, for check --jsonl; \"\" skips it")
	bins := flag.String("bins", "", "directory with vtexec, baseline and noopmcp already built (set when bench runs itself as another user)")
	nobody := flag.Bool("nobody", true, "as root, measure again as uid 65534")
	agedUses := flag.Int("aged", 0, "also measure each fresh case in a user's state aged by this many uses of vtexec (sessions, audit log, gone workspaces, killed runs), interleaved with the clean one")
	withPhases := flag.Bool("phases", false, "also time the phases of a fresh run, with a vtexec built with the vtexecphases tag (internal/phase)")
	cgo := flag.Bool("cgo", false, "build with cgo, as go install does where a C compiler is installed, instead of as the README's Install says (CGO_ENABLED=0)")
	flag.Parse()
	if *runs < 3 {
		fail(fmt.Errorf("-runs must be at least 3"))
	}
	dir := *bins
	if dir == "" {
		var err error
		if dir, err = build(*cgo, *withPhases); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	}
	lines, err := corpusLines(*corpus, dir)
	if err != nil {
		fail(err)
	}
	fmt.Printf("vtexec bench: %d fresh runs each, interleaved, as uid %d; %s; load %s; %s\n", *runs, os.Getuid(), linking(dir), loadavg(), leftovers())
	r, err := measure(dir, *runs, lines, *agedUses, *withPhases)
	if err != nil {
		fail(err)
	}
	r.print(os.Stdout)
	fmt.Printf("after: load %s; %s\n", loadavg(), leftovers())
	if os.Getuid() == 0 && *nobody && *bins == "" {
		fmt.Println()
		if err := asNobody(dir, *runs, len(lines) > 0, *agedUses, *withPhases); err != nil {
			fail(fmt.Errorf("as uid 65534: %w", err))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

// build compiles vtexec, the dependency baseline and the SDK's no-op
// server into a new directory anyone may read, all three the same way:
// as the README's Install says (CGO_ENABLED=0: a static binary), or with
// cgo, which links them against the C library and costs each process
// the dynamic loader's start.
func build(cgo, withPhases bool) (string, error) {
	dir, err := os.MkdirTemp("", "vtexec-bench-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	type target struct{ name, pkg, tags string }
	targets := []target{
		{"vtexec", "github.com/vtexec/vtexec/cmd/vtexec", ""},
		{"vtexec-serve", "github.com/vtexec/vtexec/cmd/vtexec-serve", ""},
		{"baseline", "github.com/vtexec/vtexec/cmd/vtexec/testdata/baseline", ""},
		{"noopmcp", "github.com/vtexec/vtexec/serve/testdata/noopmcp", ""},
	}
	if withPhases {
		targets = append(targets, target{phaseBinary, "github.com/vtexec/vtexec/cmd/vtexec", "vtexecphases"})
	}
	for _, t := range targets {
		// Stamped with the commit where there is one, as go install
		// stamps the version: vtexec-serve's helpers start as the
		// vtexec beside it only when both name one source exactly.
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-tags", t.tags, "-o", filepath.Join(dir, t.name), t.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{false: "0", true: "1"}[cgo])
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build -tags %q %s: %v\n%s", t.tags, t.pkg, err, out)
		}
	}
	return dir, nil
}

// corpusLines reads every line of the corpus's *.jsonl files (and its
// peer-cases), and keeps a copy in dir for a run as another user.
func corpusLines(corpus, dir string) ([]byte, error) {
	copyPath := filepath.Join(dir, "corpus.jsonl")
	if b, err := os.ReadFile(copyPath); err == nil {
		return b, nil
	}
	if corpus == "" {
		return nil, nil
	}
	if _, err := os.Stat(corpus); err != nil {
		fmt.Fprintf(os.Stderr, "bench: no corpus at %s: check --jsonl is not measured\n", corpus)
		return nil, nil
	}
	files, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		all = append(all, bytes.TrimRight(b, "\n")...)
		all = append(all, '\n')
	}
	return all, os.WriteFile(copyPath, all, 0o644)
}

// workspace makes a git repository holding file.txt.
func workspace() (string, error) {
	ws, err := os.MkdirTemp("", "vtexec-bench-ws-")
	if err != nil {
		return "", err
	}
	ws, _ = filepath.EvalSymlinks(ws)
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git init: %v: %s", err, out)
	}
	return ws, os.WriteFile(filepath.Join(ws, "file.txt"), []byte("one small file\n"), 0o644)
}

// freshEnv is an environment with new, empty state and config directories.
func freshEnv(home string) ([]string, func(), error) {
	state, err := os.MkdirTemp("", "vtexec-bench-state-")
	if err != nil {
		return nil, nil, err
	}
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
			"XDG_STATE_HOME=" + filepath.Join(state, "state"), "XDG_CONFIG_HOME=" + filepath.Join(state, "config")},
		func() { os.RemoveAll(state) }, nil
}

type sample map[string][]float64 // case -> ms (or lines/s)

type results struct {
	runs   int
	ms     sample
	rates  sample // lines per second
	skip   map[string]string
	corpus int // lines
	aged   *aged
	phases []*phaseRow // with -phases
}

// agedSuffix names a case measured in the aged state.
const agedSuffix = "@aged"

func measure(bins string, runs int, corpus []byte, agedUses int, withPhases bool) (*results, error) {
	ws, err := workspace()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	home := os.Getenv("HOME")
	vtexec, baseline := filepath.Join(bins, "vtexec"), filepath.Join(bins, "baseline")
	cat, err := exec.LookPath("cat")
	if err != nil {
		return nil, err
	}
	r := &results{runs: runs, ms: sample{}, rates: sample{}, skip: map[string]string{}, corpus: bytes.Count(corpus, []byte("\n"))}
	if agedUses > 0 {
		start := time.Now()
		a, err := age(bins, ws, home, agedUses, corpus)
		if a != nil {
			defer os.RemoveAll(a.dir)
		}
		if err != nil {
			return nil, err
		}
		r.aged = a
		fmt.Printf("aged in %.0f s: %s; %s\n", time.Since(start).Seconds(), a, leftovers())
	}

	type oneCase struct {
		name  string
		argv  []string
		stdin []byte
		fresh bool // its own new state directories
		again bool // run once untimed in them first: a session's later call
		event bool // stdin is a hook event of a session new to the state
		aged  bool // in the aged state instead of new state directories
	}
	hook := []string{vtexec, "hook", "--harness", "claude", "--workspace", ws}
	cases := []oneCase{
		{name: "baseline", argv: []string{baseline}},
		{name: "cat", argv: []string{cat, "file.txt"}},
		{name: "check", argv: []string{vtexec, "check", "--", "ls"}, fresh: true},
		{name: "run", argv: []string{vtexec, "run", "--", "cat file.txt"}, fresh: true},
		// Claude Code starts the hook for every tool call: the first of
		// a session makes the session's file, the later ones read it.
		{name: "hook", argv: hook, event: true, fresh: true},
		{name: "hook-again", argv: hook, event: true, fresh: true, again: true},
	}
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		argv := []string{bwrap, "--unshare-all", "--die-with-parent", "--new-session",
			"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"}
		for _, l := range []string{"bin", "lib", "lib64", "sbin"} {
			if t, err := os.Readlink("/" + l); err == nil {
				argv = append(argv, "--symlink", t, "/"+l)
			}
		}
		argv = append(argv, "--bind", ws, ws, "--chdir", ws, cat, "file.txt")
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			r.skip["bwrap"] = fmt.Sprintf("bwrap fails here: %v: %s", err, bytes.TrimSpace(out))
		} else {
			cases = append(cases, oneCase{name: "bwrap", argv: argv})
		}
	} else {
		r.skip["bwrap"] = "bwrap is not installed (Debian: bubblewrap)"
	}
	if len(corpus) > 0 {
		cases = append(cases, oneCase{name: "jsonl-fresh", argv: []string{vtexec, "check", "--jsonl"}, stdin: corpus, fresh: true})
	} else {
		r.skip["jsonl"] = "no corpus"
	}
	if r.aged != nil {
		for _, c := range cases {
			if c.fresh {
				c.name += agedSuffix
				c.aged = true
				cases = append(cases, c)
			}
		}
	}

	for i := range runs {
		for j := range cases {
			c := cases[(i+j)%len(cases)] // rotate, so no case always follows another
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
			cleanup := func() {}
			switch {
			case c.aged:
				env = r.aged.env(home)
			case c.fresh:
				if env, cleanup, err = freshEnv(home); err != nil {
					return nil, err
				}
			}
			stdin := c.stdin
			if c.event {
				// A new session each run: in the aged state too, the
				// first event makes its session.
				stdin = hookEvent(ws, fmt.Sprintf("bench-%s-%d", c.name, i))
			}
			command := func() (*exec.Cmd, *bytes.Buffer) {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Dir, cmd.Env = ws, env
				if stdin != nil {
					cmd.Stdin = bytes.NewReader(stdin)
				}
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				return cmd, &out
			}
			if c.again {
				first, out := command()
				if err := first.Run(); err != nil {
					cleanup()
					return nil, fmt.Errorf("%s, the untimed first call: %v\n%s", c.name, err, tail(out.Bytes()))
				}
			}
			cmd, out := command()
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			cleanup()
			if err != nil {
				return nil, fmt.Errorf("%s: %v\n%s", c.name, err, tail(out.Bytes()))
			}
			r.ms[c.name] = append(r.ms[c.name], ms(took))
			if strings.HasPrefix(c.name, "jsonl-fresh") {
				r.rates[c.name] = append(r.rates[c.name], float64(r.corpus)/took.Seconds())
			}
		}
	}
	if len(corpus) > 0 {
		if err := r.warmJSONL(vtexec, ws, home, corpus, runs); err != nil {
			return nil, err
		}
	}
	if err := r.mcp(bins, ws, home, cat, runs, r.aged); err != nil {
		return nil, err
	}
	if withPhases {
		if r.phases, err = phases(bins, ws, home, runs); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// warmJSONL feeds the corpus to one check --jsonl process: once to warm
// it, then runs more times, each timed from the first line written to
// the last answer read.
func (r *results) warmJSONL(vtexec, ws, home string, corpus []byte, runs int) error {
	env, cleanup, err := freshEnv(home)
	if err != nil {
		return err
	}
	defer cleanup()
	cmd := exec.Command(vtexec, "check", "--jsonl")
	cmd.Dir, cmd.Env = ws, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Wait()
	defer in.Close()
	out := bufio.NewReaderSize(outPipe, 1<<20)
	n := bytes.Count(corpus, []byte("\n"))
	pass := func() (time.Duration, error) {
		start := time.Now()
		errc := make(chan error, 1)
		go func() { _, err := in.Write(corpus); errc <- err }()
		for range n {
			if _, err := out.ReadBytes('\n'); err != nil {
				return 0, fmt.Errorf("check --jsonl: %v", err)
			}
		}
		return time.Since(start), <-errc
	}
	if _, err := pass(); err != nil {
		return err
	}
	for range runs {
		took, err := pass()
		if err != nil {
			return err
		}
		r.rates["jsonl-warm"] = append(r.rates["jsonl-warm"], float64(n)/took.Seconds())
	}
	return nil
}

// mcp times, interleaved, 10×runs times each, a shell call of cat over stdio, cat itself, a
// shell_check call and a call of the SDK's no-op tool.
func (r *results) mcp(bins, ws, home, cat string, runs int, a *aged) error {
	env, cleanup, err := freshEnv(home)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx := context.Background()
	serve := func(env []string) (*mcp.ClientSession, error) {
		serveCmd := exec.Command(filepath.Join(bins, "vtexec"), "serve", "--workspace", ws)
		serveCmd.Env = env
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: serveCmd}, nil)
		if err != nil {
			return nil, fmt.Errorf("vtexec serve: %v", err)
		}
		return cs, nil
	}
	cs, err := serve(env)
	if err != nil {
		return err
	}
	defer cs.Close()
	noop, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: exec.Command(filepath.Join(bins, "noopmcp"))}, nil)
	if err != nil {
		return fmt.Errorf("noopmcp: %v", err)
	}
	defer noop.Close()
	call := func(cs *mcp.ClientSession, tool string) func() error {
		return func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"command": "cat file.txt"}})
			if err == nil && res.IsError {
				err = fmt.Errorf("%s: %v", tool, res.Content)
			}
			return err
		}
	}
	catRun := func() error {
		c := exec.Command(cat, "file.txt")
		c.Dir = ws
		return c.Run()
	}
	steps := []step{{"mcp-shell", call(cs, "shell")}, {"mcp-cat", catRun}, {"mcp-check", call(cs, "shell_check")}, {"mcp-noop", call(noop, "noop")}}
	if a != nil {
		old, err := serve(a.env(home))
		if err != nil {
			return fmt.Errorf("in the aged state: %v", err)
		}
		defer old.Close()
		steps = append(steps, step{"mcp-shell" + agedSuffix, call(old, "shell")}, step{"mcp-check" + agedSuffix, call(old, "shell_check")})
	}
	for _, s := range steps { // warm the connections
		if err := s.f(); err != nil {
			return err
		}
	}
	// A call takes well under a millisecond: ten times the runs, so that
	// the medians hold still.
	for i := range runs * 10 {
		for j := range steps {
			s := steps[(i+j)%len(steps)]
			start := time.Now()
			if err := s.f(); err != nil {
				return err
			}
			r.ms[s.name] = append(r.ms[s.name], ms(time.Since(start)))
		}
	}
	// As an agent calls: a model's turn between calls (20 ms is far
	// less than any model takes), in which the server may get ready.
	paced := []step{{"mcp-shell-paced", call(cs, "shell")}, {"mcp-cat-paced", catRun}}
	for range runs * 3 {
		for _, s := range paced {
			time.Sleep(20 * time.Millisecond)
			start := time.Now()
			if err := s.f(); err != nil {
				return err
			}
			r.ms[s.name] = append(r.ms[s.name], ms(time.Since(start)))
		}
	}
	return nil
}

// step is one timed case of the MCP measurement.
type step struct {
	name string
	f    func() error
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func med(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func (r *results) print(w io.Writer) {
	fmt.Fprintf(w, "%-12s %10s %10s %10s\n", "case", "median", "min", "max")
	for _, name := range []string{"baseline", "cat", "check", "hook", "hook-again", "run", "bwrap", "jsonl-fresh", "mcp-cat", "mcp-shell", "mcp-noop", "mcp-check", "mcp-cat-paced", "mcp-shell-paced"} {
		if v := r.ms[name]; len(v) > 0 {
			fmt.Fprintf(w, "%-12s %8.2fms %8.2fms %8.2fms\n", name, med(v), slices.Min(v), slices.Max(v))
		}
	}
	for _, name := range []string{"jsonl-fresh", "jsonl-warm"} {
		if v := r.rates[name]; len(v) > 0 {
			fmt.Fprintf(w, "%-12s %8.0f/s %8.0f/s %8.0f/s  (lines of %d)\n", name, med(v), slices.Min(v), slices.Max(v), r.corpus)
		}
	}
	m := func(name string) float64 {
		if v := r.ms[name]; len(v) > 0 {
			return med(v)
		}
		return 0
	}
	fmt.Fprintln(w, "figure                                     value     goal")
	fmt.Fprintf(w, "check -- ls − baseline                   %+7.2f ms  ≤ +1 ms\n", m("check")-m("baseline"))
	fmt.Fprintf(w, "hook, a Claude Code Bash event − baseline %+7.2f ms\n", m("hook")-m("baseline"))
	fmt.Fprintf(w, "  the same, a later event of its session  %+7.2f ms\n", m("hook-again")-m("baseline"))
	fmt.Fprintf(w, "run -- 'cat file' − (baseline + cat)     %+7.2f ms  ≤ +1.5 ms\n", m("run")-m("baseline")-m("cat"))
	if b := m("bwrap"); b > 0 {
		fmt.Fprintf(w, "run -- 'cat file' / bwrap cat             %6.2f ×   ≤ 1.0 ×\n", m("run")/b)
		fmt.Fprintf(w, "bwrap cat − cat                          %+7.2f ms\n", b-m("cat"))
	}
	if v := r.rates["jsonl-fresh"]; len(v) > 0 {
		fmt.Fprintf(w, "check --jsonl, one fresh process         %7.0f /s  ≥ 28,000 /s\n", med(v))
		fmt.Fprintf(w, "check --jsonl, warm                      %7.0f /s\n", med(r.rates["jsonl-warm"]))
	}
	fmt.Fprintf(w, "MCP shell of cat / cat                    %6.2f ×   ≤ 2 ×\n", m("mcp-shell")/m("mcp-cat"))
	fmt.Fprintf(w, "  the same, 20 ms between calls           %6.2f ×\n", m("mcp-shell-paced")/m("mcp-cat-paced"))
	fmt.Fprintf(w, "shell_check / no-op tool (throughput)     %6.2f ×   ≥ 0.8 ×\n", m("mcp-noop")/m("mcp-check"))
	if r.aged != nil {
		r.printAged(w)
	}
	if r.phases != nil {
		printPhases(w, r.phases, r.runs)
	}
	var names []string
	for k := range r.skip {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(w, "not measured: %s: %s\n", k, r.skip[k])
	}
}

// asNobody runs this bench again as uid 65534, with the binaries built
// here and a home of its own.
func asNobody(bins string, runs int, withCorpus bool, agedUses int, withPhases bool) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	exe := filepath.Join(bins, "bench")
	if err := copyFile(self, exe); err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "vtexec-bench-nobody-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	if err := os.Chown(home, 65534, 65534); err != nil {
		return err
	}
	args := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "env", "-i", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + home,
		exe, "-bins", bins, "-runs", strconv.Itoa(runs), "-aged", strconv.Itoa(agedUses), "-phases=" + strconv.FormatBool(withPhases)}
	if !withCorpus {
		args = append(args, "-corpus", "")
	}
	cmd := exec.Command("setpriv", args...)
	cmd.Dir = home
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// linking says how the vtexec in dir was built, as vtexec version does.
func linking(dir string) string {
	out, err := exec.Command(filepath.Join(dir, "vtexec"), "version").Output()
	if err != nil {
		return "linking unknown"
	}
	how := "vtexec static (CGO_ENABLED=0)"
	if strings.Contains(string(out), "with cgo") {
		how = "vtexec built with cgo"
	}
	switch {
	case strings.Contains(string(out), "uncommitted changes"):
		how += ", from a tree with uncommitted changes (the server's helpers are the server)"
	case !strings.Contains(string(out), " commit ") && strings.Contains(string(out), "(devel)"):
		how += ", without its commit (the server's helpers are the server)"
	}
	return how
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// leftovers describes vtexec's state that outlives its runs: cgroups it
// made, mount namespaces it keeps, and the size of the audit log.
func leftovers() string {
	cgroups := 0
	// One walk: under cgroup v1 the pids hierarchy is /sys/fs/cgroup/pids
	// (walking it apart counted its cgroups twice).
	const root = "/sys/fs/cgroup"
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), "vtexec-") {
			cgroups++
			return filepath.SkipDir
		}
		if strings.Count(strings.TrimPrefix(p, root), "/") > 4 {
			return filepath.SkipDir
		}
		return nil
	})
	kept, _ := os.ReadDir("/run/vtexec/mnt")
	audit := "none"
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" {
		state = filepath.Join(os.Getenv("HOME"), ".local", "state")
	}
	if fi, err := os.Stat(filepath.Join(state, "vtexec", "audit.jsonl")); err == nil {
		audit = fmt.Sprintf("%.1f MB", float64(fi.Size())/1e6)
	}
	return fmt.Sprintf("leftover state: %d vtexec cgroups, %d kept mount namespaces, the user's audit log %s", cgroups, len(kept), audit)
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
