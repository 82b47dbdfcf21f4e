//go:build linux && !amd64 && !arm64

package confine

// No syscall filter is built for this architecture.
const seccompAvailable = false

func installSeccomp() error { return nil }
