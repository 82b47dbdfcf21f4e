//go:build !windows

package confine

import (
	"os/exec"
	"syscall"
)

// setpgid starts cmd in leader's process group, or a new one it leads.
func setpgid(cmd *exec.Cmd, leader Process) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
	if leader != nil {
		cmd.SysProcAttr.Pgid = leader.Pid()
	}
}
