package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

// becomeServer runs the server on vtexec's own streams and exits with
// its status (Windows has no exec that keeps the process).
func becomeServer(ctx context.Context, server string, args []string) (int, error) {
	cmd := exec.CommandContext(ctx, server, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = serverEnv()
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, err
}
