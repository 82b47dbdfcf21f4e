package runner

import (
	"os/exec"

	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/plan"
)

// Launcher builds and starts the processes of one run: the seam where the
// kernel box is slotted in.
//
// Command must return a command that, once started, executes c.Program
// with exactly c.Argv in c.Dir with exactly env, or nil if it cannot. The
// runner then sets Stdin, Stdout and Stderr.
//
// Start starts cmd as a process of the pipeline led by leader, or, with
// a nil leader, as the first process of a new pipeline. The runner starts
// a pipeline's commands from its last to its first, so the leader is the
// last command. Every process of a pipeline must be reachable by a
// signal to the leader's process group, and must not outlive the leader
// by more than that signal.
type Launcher interface {
	Command(c plan.Cmd, env []string) *exec.Cmd
	Start(c plan.Cmd, cmd *exec.Cmd, leader confine.Process) (confine.Process, error)
}

// Direct is the Launcher that executes the program itself, unconfined.
type Direct struct{}

// Command returns exec.Cmd{Path: c.Program, Args: c.Argv, Dir: c.Dir, Env:
// env}. Args[0] is c.Argv[0] exactly as typed; nothing is looked up on PATH.
func (Direct) Command(c plan.Cmd, env []string) *exec.Cmd {
	return &exec.Cmd{Path: c.Program, Args: c.Argv, Dir: c.Dir, Env: env}
}

// Start starts cmd in the leader's process group (a new one without a
// leader).
func (Direct) Start(_ plan.Cmd, cmd *exec.Cmd, leader confine.Process) (confine.Process, error) {
	return confine.StartDirect(cmd, leader)
}

// Boxed is the Launcher that starts every program in a kernel box, and in
// Group if set (the run's process group, see confine.Box.NewGroup).
type Boxed struct {
	Box   *confine.Box
	Group *confine.Group
}

// Command is Direct's.
func (Boxed) Command(c plan.Cmd, env []string) *exec.Cmd { return Direct{}.Command(c, env) }

// Start starts cmd in the box, with the network if c was granted it.
func (b Boxed) Start(c plan.Cmd, cmd *exec.Cmd, leader confine.Process) (confine.Process, error) {
	return b.Box.StartWith(cmd, leader, confine.StartOptions{Network: c.Network, Git: c.Git, Group: b.Group})
}
