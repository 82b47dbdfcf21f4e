// Command corpus measures vtexec against the public evaluation corpora
// (GTFOBins techniques, everyday tldr commands, peers' test inputs):
//
//	go run ./tests/corpus [-v] [-policy-allow] ../shared/corpus
//
// Every line is checked in a small fixture workspace. It prints the figures
// and exits 1 if any GTFOBins technique (all expected to be refused) is
// allowed. The corpora are for measuring, not test fixtures: nothing here
// is needed for the project's tests.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
)

type line struct {
	Cmd        string `json:"cmd"`
	Expect     string `json:"expect"`
	ExpectHint string `json:"expect_hint"`
	Why        string `json:"why"`
}

func main() {
	verbose := flag.Bool("v", false, "list every line whose decision differs from the expectation")
	allow := flag.Bool("policy-allow", false, "also run vtexec policy allow on every command and check that the policy loads after each")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tests/corpus [-v] [-policy-allow] DIR (the shared corpus directory)")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	ws, err := fixture()
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(filepath.Dir(ws))

	failed := false
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	peers, _ := filepath.Glob(filepath.Join(dir, "peer-cases", "*.jsonl"))
	for _, f := range append(files, peers...) {
		lines, err := read(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "corpus:", err)
			os.Exit(2)
		}
		if report(filepath.Base(f), lines, ws, *verbose) {
			failed = true
		}
		if *allow && policyAllowEvery(lines) {
			failed = true
		}
	}
	if failed {
		fmt.Println("FAIL: a technique expected to be refused was allowed, or a rule policy allow wrote broke the policy")
		os.Exit(1)
	}
}

// report prints the figures for one corpus and says whether it failed.
func report(name string, lines []line, ws string, verbose bool) bool {
	engine := vtexec.NewEngine(vtexec.Config{})
	defer engine.Close()
	counts := map[string]map[string]int{} // expectation -> decision -> n
	var differ []string
	failed := false
	runTime, ran := 0, 0
	for _, l := range lines {
		want := l.Expect
		if want == "" {
			want = l.ExpectHint
		}
		d, err := engine.Check(context.Background(), vtexec.Request{Command: l.Cmd, Workspace: ws})
		got, code := string(d.Decision), d.Code
		if err != nil {
			got, code = "deny", codes.BadRequest
		}
		if counts[want] == nil {
			counts[want] = map[string]int{}
		}
		counts[want][got]++
		if name == "gtfobins.jsonl" && got == "allow" {
			failed = true
			differ = append(differ, fmt.Sprintf("  ALLOWED %q", l.Cmd))
			continue
		}
		if name == "gtfobins.jsonl" && code == codes.RunTimeCheck {
			// Decided as it runs: run it, in a copy of the fixture, and
			// count it allowed unless a command of it is refused.
			runTime++
			if ranToEnd(engine, l.Cmd) {
				failed = true
				ran++
				differ = append(differ, fmt.Sprintf("  RAN TO THE END %q", l.Cmd))
				continue
			}
		}
		if !agrees(want, got) {
			differ = append(differ, fmt.Sprintf("  expect %-11s got %-5s %-18s %q", want, got, code, l.Cmd))
		}
	}
	fmt.Printf("%s: %d lines\n", name, len(lines))
	var wants []string
	for w := range counts {
		wants = append(wants, w)
	}
	sort.Strings(wants)
	for _, w := range wants {
		c := counts[w]
		total := c["allow"] + c["ask"] + c["deny"]
		fmt.Printf("  expect %-11s %4d: allow %4d (%5.1f%%)  ask %4d  deny %4d\n", w, total, c["allow"], 100*float64(c["allow"])/float64(total), c["ask"], c["deny"])
	}
	if runTime > 0 {
		fmt.Printf("  decided as they run (run_time_check): %d, run in the interpreter: %d ran to the end, %d were stopped at a refused command\n", runTime, ran, runTime-ran)
	}
	fmt.Printf("  differing from the expectation: %d\n", len(differ))
	if verbose || failed {
		fmt.Println(strings.Join(differ, "\n"))
	}
	return failed
}

// agrees maps the corpora's words onto vtexec's decisions: "prompt" and
// "policy" are ask; "likely-deny" accepts ask or deny.
func agrees(want, got string) bool {
	switch want {
	case "allow":
		return got == "allow"
	case "deny":
		return got == "deny"
	case "prompt", "policy":
		return got == "ask"
	case "likely-deny":
		return got != "allow"
	}
	return false
}

func read(path string) ([]line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// placeholders are the names the techniques give the file or directory
// they read or write (LFILE=file_to_read): the attacker's pick. The
// fixture makes each a link to a place outside the project, which is
// what the technique means by it.
var placeholders = []string{"file_to_read", "file_to_write", "file_to_send", "file_to_save", "file_to_change",
	"where_to_write", "file_to_get", "output_file", "input_file", "file_to_delete", "dir_to_serve",
	"file_or_dir_to_get", "backup_name", "folder_to_list"}

// fixture makes a small project: a README, sources, a .git directory, and
// the techniques' placeholders as links to files outside it.
func fixture() (string, error) {
	base, err := os.MkdirTemp("", "vtexec-corpus-")
	if err != nil {
		return "", err
	}
	ws := filepath.Join(base, "project")
	for name, body := range map[string]string{
		"README.md":        "# project\n",
		"main.go":          "package main\n",
		"src/lib.go":       "package src\n",
		"src/util.py":      "print(1)\n",
		"docs/guide.md":    "guide\n",
		"path/to/file":     "file\n",
		"path/to/file.txt": "file\n",
		".git/config":      "[core]\n",
		"package.json":     "{}\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return "", err
	}
	for _, name := range placeholders {
		if err := os.WriteFile(filepath.Join(outside, name), []byte("secret\n"), 0o644); err != nil {
			return "", err
		}
		if err := os.Symlink(filepath.Join(outside, name), filepath.Join(ws, name)); err != nil {
			return "", err
		}
	}
	return ws, nil
}

// ranToEnd runs cmd in a fresh copy of the fixture, in the box, with no
// person to ask, and reports whether it ran to its end: no command of it
// refused, not stopped by a limit or the timeout.
func ranToEnd(engine *vtexec.Engine, cmd string) bool {
	ws, err := fixture()
	if err != nil {
		return true
	}
	defer os.RemoveAll(filepath.Dir(ws))
	res, err := engine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off", Timeout: 10 * time.Second})
	return err == nil && res.Decision.Allowed() && res.Stopped == nil && !res.TimedOut
}
