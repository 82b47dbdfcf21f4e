//go:build unix

package main

import (
	"context"
	"os"
	"syscall"
)

// becomeServer replaces vtexec with the server: the client's pipes, the
// process and its parent stay the same.
func becomeServer(_ context.Context, server string, args []string) (int, error) {
	err := syscall.Exec(server, append([]string{server}, args...), serverEnv())
	return 0, &os.PathError{Op: "exec", Path: server, Err: err}
}
