package runner

import (
	"errors"
	"syscall"
)

// signalGroup: Windows has no signals for a process group; each process
// is signalled (killed) on its own.
func signalGroup(int, syscall.Signal) error { return errors.ErrUnsupported }
