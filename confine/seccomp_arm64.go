//go:build linux

package confine

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

func abiGuard() []unix.SockFilter { return nil }

// archDenied are the syscalls only this architecture has that the filter
// refuses: none.
var archDenied []int
