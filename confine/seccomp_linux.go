//go:build linux && (amd64 || arm64)

package confine

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The syscall filter, in the spirit of container runtimes' default
// profiles: a box may not use the kernel's facilities that outlive it or
// reach past it. deniedSyscalls fail with EPERM: keyrings (a key added
// to the user's keyring outlives the box and the user's other processes
// read it), BPF, perf events, kernel modules and kexec, mounts, swap,
// reboot, accounting, quotas, the kernel log, handles that open files by
// inode, userfaultfd, and new namespaces (unshare, setns, and clone with
// a namespace flag; clone3, whose flags a filter cannot read, fails with
// ENOSYS, so that callers fall back to clone). Everything else is the
// kernel's and Landlock's to decide.

// deniedSyscalls fail with EPERM in a box (archDenied adds the ones of
// one architecture).
var deniedSyscalls = append([]int{
	unix.SYS_ADD_KEY, unix.SYS_KEYCTL, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_SYSLOG,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_USERFAULTFD,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
}, archDenied...)

// cloneNamespaces are the clone flags that make a namespace.
const cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// seccompFilter is the filter program.
func seccompFilter() []unix.SockFilter {
	const (
		ldw  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		// Offsets in struct seccomp_data.
		offNr, offArch, offArg0 = 0, 4, 16
	)
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	prog := []unix.SockFilter{
		stmt(ldw, offArch),
		jump(jeq, auditArch, 1, 0),
		stmt(ret, unix.SECCOMP_RET_KILL_PROCESS), // another ABI's numbers
		stmt(ldw, offNr),
	}
	prog = append(prog, abiGuard()...)
	for _, nr := range deniedSyscalls {
		prog = append(prog, jump(jeq, uint32(nr), 0, 1), stmt(ret, eperm))
	}
	prog = append(prog,
		jump(jeq, unix.SYS_CLONE3, 0, 1), stmt(ret, enosys),
		jump(jeq, unix.SYS_CLONE, 0, 3),
		stmt(ldw, offArg0+cloneFlagsLow), // clone's flags, low 32 bits
		jump(jset, cloneNamespaces, 0, 1), stmt(ret, eperm),
		stmt(ret, unix.SECCOMP_RET_ALLOW),
	)
	return prog
}

// cloneFlagsLow is the offset of the low 32 bits of a 64-bit argument
// (little endian on both architectures here).
const cloneFlagsLow = 0

// installSeccomp applies the filter to the calling thread (no_new_privs
// must be set); the programs it starts inherit it.
func installSeccomp() error {
	filter := seccompFilter()
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// seccompAvailable reports whether the filter can be applied here.
const seccompAvailable = true
