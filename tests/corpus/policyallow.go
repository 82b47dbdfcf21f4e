package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/workspace"
)

// policyAllowEvery runs vtexec policy allow on every simple command of
// every line, as the check splits it, in a fixture workspace with a
// policy of its own, and vtexec policy check after each rule written:
// the policy must load every time. A program vtexec refuses whatever the
// policy says is declined, never an internal error. It reports the
// figures and whether any rule broke the policy.
func policyAllowEvery(lines []line) bool {
	base, err := os.MkdirTemp("", "vtexec-corpus-allow-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		return true
	}
	defer os.RemoveAll(base)
	bin := filepath.Join(base, "vtexec")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/vtexec/vtexec/cmd/vtexec").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "corpus: go build: %v\n%s", err, out)
		return true
	}
	ws, err := fixture()
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		return true
	}
	defer os.RemoveAll(filepath.Dir(ws))
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(base, "config"), "XDG_STATE_HOME="+filepath.Join(base, "state"))
	vt := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Dir = ws
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		} else if err != nil {
			return -1, err.Error()
		}
		return 0, out.String()
	}
	w, err := workspace.New(ws)
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		return true
	}
	var checker execpolicy.Checker
	written, declined, broken := 0, 0, 0
	for _, l := range lines {
		for _, p := range checker.Check(l.Cmd, w).Parts {
			if len(p.Argv) == 0 || p.Program == "" {
				continue // a builtin, or no program to name
			}
			code, out := vt(append([]string{"policy", "allow", "--workspace", ws, "--"}, p.Argv...)...)
			if code != 0 {
				declined++
				if code < 0 || strings.Contains(out, codes.InternalError) {
					broken++
					fmt.Printf("  policy allow -- %q: %s", p.Argv, out)
				}
				continue
			}
			written++
			if code, out := vt("policy", "check", "--workspace", ws); code != 0 {
				broken++
				fmt.Printf("  the policy does not load after policy allow -- %q: %s", p.Argv, out)
			}
		}
	}
	fmt.Printf("  policy allow: %d rules written, the policy loaded after each: %d broke it; %d commands declined\n", written, broken, declined)
	return broken > 0
}
