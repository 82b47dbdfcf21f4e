//go:build !linux

package runner

import "os"

// pendingBytes is not known here: the pipes are closed once drainTime has
// passed, as if they were empty.
func pendingBytes([]*os.File) int { return 0 }
