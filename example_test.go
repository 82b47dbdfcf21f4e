package vtexec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec"
)

// exampleWorkspace makes a small project in a temporary directory, with
// vtexec's state and configuration beside it.
func exampleWorkspace() (string, func()) {
	dir, _ := os.MkdirTemp("", "vtexec-example-")
	ws := filepath.Join(dir, "project")
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# demo\n"), 0o644)
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	return ws, func() { os.RemoveAll(dir) }
}

// An Engine checks a command string against the workspace without
// running it: a read inside runs, a path outside is refused with a code,
// a reason and a hint an agent can act on.
func ExampleEngine_Check() {
	ws, done := exampleWorkspace()
	defer done()
	engine := vtexec.NewEngine(vtexec.Config{})
	defer engine.Close()
	for _, cmd := range []string{"cat README.md", "cat ~/.ssh/id_rsa", "ls $(pwd)/src"} {
		d, err := engine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s: %s %s", cmd, d.Decision, d.Code)))
	}
	// Output:
	// cat README.md: allow
	// cat ~/.ssh/id_rsa: deny outside_workspace
	// ls $(pwd)/src: allow
}

// denyAll is an Approver that a face would back with a person: this one
// says no, and shows what it was asked.
type denyAll struct{}

func (denyAll) Approve(_ context.Context, q vtexec.Question) (vtexec.Answer, error) {
	for _, a := range q.Asks {
		fmt.Printf("asked about %v, with a reason: %t\n", a.Argv, a.Reason != "")
	}
	return vtexec.AnswerDeny, nil
}

// A command that needs a person goes to the Request's Approver; a deny
// runs nothing.
func ExampleApprover() {
	ws, done := exampleWorkspace()
	defer done()
	engine := vtexec.NewEngine(vtexec.Config{})
	defer engine.Close()
	res, err := engine.Run(context.Background(), vtexec.Request{
		Command: "rm -r src", Workspace: ws, AuditLog: "off", Approver: denyAll{}, Confinement: "off",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, statErr := os.Stat(filepath.Join(ws, "src"))
	fmt.Println(res.Decision.Decision, res.Decision.Code, statErr == nil)
	// Output:
	// asked about [rm -r src], with a reason: true
	// deny denied_by_user true
}
