package confine

import (
	"os/exec"
	"syscall"
)

// setpgid starts cmd in a new process group (Windows joins no group
// another process leads).
func setpgid(cmd *exec.Cmd, _ Process) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}
