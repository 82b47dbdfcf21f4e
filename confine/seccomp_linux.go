//go:build linux && (amd64 || arm64)

package confine

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
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

// BPF opcodes and the offsets in struct seccomp_data the filter uses.
const (
	bpfLdw  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet  = unix.BPF_RET | unix.BPF_K

	seccompOffNr, seccompOffArch, seccompOffArg0 = 0, 4, 16
)

// seccompRule is what the filter does for one syscall number.
type seccompRule struct {
	nr     uint32
	action uint32 // a return value, or ruleCloneFlags
}

// ruleCloneFlags: clone, refused when its flags make a namespace.
const ruleCloneFlags = ^uint32(0)

// seccompRules are the filter's rules, sorted by number.
func seccompRules() []seccompRule {
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	rules := []seccompRule{
		{unix.SYS_CLONE3, uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))},
		{unix.SYS_CLONE, ruleCloneFlags},
	}
	for _, nr := range deniedSyscalls {
		rules = append(rules, seccompRule{uint32(nr), eperm})
	}
	slices.SortFunc(rules, func(a, b seccompRule) int { return cmp.Compare(a.nr, b.nr) })
	return slices.CompactFunc(rules, func(a, b seccompRule) bool { return a.nr == b.nr })
}

// seccompFilter is the filter program. The numbers are looked up in a
// binary tree of comparisons rather than one after another: the kernel
// runs the filter for every syscall number when it is installed (to
// cache which ones are always allowed), so its length is paid on every
// program start.
func seccompFilter() []unix.SockFilter {
	prog := []unix.SockFilter{
		{Code: bpfLdw, K: seccompOffArch},
		{Code: bpfJeq, K: auditArch, Jt: 1},
		{Code: bpfRet, K: unix.SECCOMP_RET_KILL_PROCESS}, // another ABI's numbers
		{Code: bpfLdw, K: seccompOffNr},
	}
	prog = append(prog, abiGuard()...)
	return append(prog, seccompTree(seccompRules())...)
}

// builtFilter is seccompFilter, built once: the kernel copies it.
var builtFilter = sync.OnceValue(seccompFilter)

// seccompTree is the filter for the sorted rules, the number in the
// accumulator: each block ends in a return, so blocks need no exits.
func seccompTree(rules []seccompRule) []unix.SockFilter {
	if len(rules) <= 3 {
		var out []unix.SockFilter
		for _, r := range rules {
			action := seccompAction(r.action)
			out = append(out, unix.SockFilter{Code: bpfJeq, K: r.nr, Jf: uint8(len(action))})
			out = append(out, action...)
		}
		return append(out, unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW})
	}
	mid := len(rules) / 2
	below := seccompTree(rules[:mid])
	out := []unix.SockFilter{{Code: bpfJge, K: rules[mid].nr, Jt: uint8(len(below))}}
	out = append(out, below...)
	return append(out, seccompTree(rules[mid:])...)
}

// seccompAction is the code a matched rule runs.
func seccompAction(action uint32) []unix.SockFilter {
	if action != ruleCloneFlags {
		return []unix.SockFilter{{Code: bpfRet, K: action}}
	}
	return []unix.SockFilter{
		{Code: bpfLdw, K: seccompOffArg0 + cloneFlagsLow}, // clone's flags, low 32 bits
		{Code: bpfJset, K: cloneNamespaces, Jf: 1},
		{Code: bpfRet, K: uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))},
		{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW},
	}
}

// cloneFlagsLow is the offset of the low 32 bits of a 64-bit argument
// (little endian on both architectures here).
const cloneFlagsLow = 0

// installSeccomp applies the filter to the calling thread (no_new_privs
// must be set); the programs it starts inherit it.
func installSeccomp() error {
	prog := seccompProgram()
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(prog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// seccompProgram is the filter as seccomp(2) takes it.
func seccompProgram() *unix.SockFprog {
	filter := builtFilter()
	return &unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
}

// seccompAvailable reports whether the filter can be applied here.
const seccompAvailable = true
