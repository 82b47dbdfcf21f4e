//go:build !(linux && amd64)

package exithold

import "os"

// Hold starts no holder here: 0 (see the linux/amd64 version).
func Hold(keep *os.File) int { return 0 }

// CloseAfterExit leaves f as it is here: without a holder it would be
// closed as the process exits anyway (see the linux/amd64 version).
func CloseAfterExit(f *os.File) bool { return false }
