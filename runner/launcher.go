package runner

import (
	"os/exec"

	"github.com/vtexec/vtexec/plan"
)

// Launcher builds the *exec.Cmd for one checked command. It is the seam where
// a confinement wrapper (a re-exec helper that applies Landlock before
// execve) will be slotted in later without touching callers.
//
// Command must return a command that, once started, executes c.Program with
// exactly c.Argv in c.Dir with exactly env, or nil if it cannot. It must not
// start the command. The runner then sets Stdin, Stdout and Stderr, and sets
// Setpgid and Pgid in SysProcAttr (allocating it if nil, keeping any other
// fields the Launcher set); a Launcher must not rely on those fields.
type Launcher interface {
	Command(c plan.Cmd, env []string) *exec.Cmd
}

// Direct is the Launcher that executes the program itself, unconfined.
type Direct struct{}

// Command returns exec.Cmd{Path: c.Program, Args: c.Argv, Dir: c.Dir, Env:
// env}. Args[0] is c.Argv[0] exactly as typed; nothing is looked up on PATH.
func (Direct) Command(c plan.Cmd, env []string) *exec.Cmd {
	return &exec.Cmd{Path: c.Program, Args: c.Argv, Dir: c.Dir, Env: env}
}
