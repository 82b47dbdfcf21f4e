//go:build linux && !amd64 && !arm64

package confine

import "golang.org/x/sys/unix"

// No syscall filter is built for this architecture.
const seccompAvailable = false

func installSeccomp() error { return nil }

func seccompProgram() *unix.SockFprog { return nil }
