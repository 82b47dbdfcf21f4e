//go:build linux

package confine

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_X86_64

// abiGuard refuses x32 syscalls (numbers with bit 30 set), which the arch
// check does not tell from x86_64's.
func abiGuard() []unix.SockFilter {
	return []unix.SockFilter{
		{Code: bpfJge, K: 0x40000000, Jt: 0, Jf: 1},
		{Code: bpfRet, K: uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))},
	}
}

// archDenied are the syscalls only this architecture has that the filter
// refuses.
var archDenied = []int{unix.SYS_IOPERM, unix.SYS_IOPL}
