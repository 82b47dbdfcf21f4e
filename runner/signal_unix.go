//go:build !windows

package runner

import "syscall"

// signalGroup sends sig to the process group pgid.
func signalGroup(pgid int, sig syscall.Signal) error { return syscall.Kill(-pgid, sig) }
