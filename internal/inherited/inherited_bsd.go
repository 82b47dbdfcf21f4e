//go:build darwin || freebsd

package inherited

// CloseOnExec marks every descriptor from 3 up close-on-exec.
func CloseOnExec() error { return eachFrom3("/dev/fd") }
