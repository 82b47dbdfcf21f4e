//go:build linux && (amd64 || arm64)

package confine

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// runFilter runs the filter on one syscall as the kernel would (the
// subset of classic BPF the filter uses).
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, arg0 uint64) uint32 {
	var data [64]byte
	binary.LittleEndian.PutUint32(data[seccompOffNr:], nr)
	binary.LittleEndian.PutUint32(data[seccompOffArch:], arch)
	binary.LittleEndian.PutUint64(data[seccompOffArg0:], arg0)
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLdw:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case bpfRet:
			return in.K
		case bpfJeq, bpfJge, bpfJset:
			taken := map[uint16]bool{bpfJeq: acc == in.K, bpfJge: acc >= in.K, bpfJset: acc&in.K != 0}[in.Code]
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

// TestSeccompFilterDecidesEveryNumber: the tree of comparisons answers
// for every syscall number what the list of denied syscalls says, and
// clone only when its flags make a namespace.
func TestSeccompFilterDecidesEveryNumber(t *testing.T) {
	prog := seccompFilter()
	require.Less(t, len(prog), 4096)
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	for nr := uint32(0); nr < 1200; nr++ {
		want := uint32(unix.SECCOMP_RET_ALLOW)
		switch {
		case slices.Contains(deniedSyscalls, int(nr)):
			want = eperm
		case nr == unix.SYS_CLONE3:
			want = enosys
		}
		require.Equal(t, want, runFilter(t, prog, auditArch, nr, 0), "syscall %d", nr)
	}
	require.Equal(t, uint32(unix.SECCOMP_RET_ALLOW), runFilter(t, prog, auditArch, unix.SYS_CLONE, uint64(unix.SIGCHLD)))
	for _, flag := range []uint64{unix.CLONE_NEWUSER, unix.CLONE_NEWNET, unix.CLONE_NEWNS, unix.CLONE_NEWPID} {
		require.Equal(t, eperm, runFilter(t, prog, auditArch, unix.SYS_CLONE, flag|uint64(unix.SIGCHLD)), fmt.Sprintf("clone %#x", flag))
	}
	require.Equal(t, uint32(unix.SECCOMP_RET_KILL_PROCESS), runFilter(t, prog, auditArch^1, unix.SYS_GETPID, 0), "another architecture")
	if len(abiGuard()) > 0 {
		require.Equal(t, eperm, runFilter(t, prog, auditArch, 0x40000000|unix.SYS_GETPID, 0), "an x32 number")
	}
}
