//go:build !windows

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, killed whole when
// its context ends.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
