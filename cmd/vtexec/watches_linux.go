package main

import "golang.org/x/sys/unix"

// closeOthersOnExec marks every descriptor from 3 up close-on-exec.
func closeOthersOnExec() error {
	return unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
}
