//go:build linux

package confine

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

func abiGuard() []unix.SockFilter { return nil }

var deniedSyscalls = []int{
	unix.SYS_ADD_KEY, unix.SYS_KEYCTL, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_SYSLOG,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_USERFAULTFD,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
}
