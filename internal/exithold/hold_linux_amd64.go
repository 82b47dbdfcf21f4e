package exithold

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// stack is the holder's: it shares this process's memory, so it must not
// run on a stack of this process's goroutines.
var stack [8 << 10]byte

// rootDir is where the holder moves, so that it keeps no directory of
// the caller's in use (a file system to unmount).
var rootDir = [2]byte{'/', 0}

func clonehold(stackTop uintptr, pipe int32, keep int32, root *byte) (pid int64)

// Hold starts the holder, giving it keep (nil: none), and returns its
// pid, or 0 if it could not be started. Call it once, as the process
// exits: the holder shares the memory, which must not change under it
// for long, and ends when this process has.
func Hold(keep *os.File) int {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return 0
	}
	defer syscall.Close(p[0]) // the write end, p[1], closes with this process
	k := int32(-1)
	if keep != nil {
		k = int32(keep.Fd())
	}
	top := (uintptr(unsafe.Pointer(&stack[len(stack)-1])) + 1) &^ 15
	// Every signal blocked on this thread across the clone, which the
	// holder inherits: a signal handler of Go's would run in it without
	// a Go runtime.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	all, old := ^uint64(0), uint64(0)
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigSetMask, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), 8, 0, 0); errno != 0 {
		syscall.Close(p[1])
		return 0
	}
	pid := clonehold(top, int32(p[0]), k, &rootDir[0])
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigSetMask, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	runtime.KeepAlive(keep)
	if pid <= 0 {
		syscall.Close(p[1])
		return 0
	}
	return int(pid)
}

// sigSetMask is rt_sigprocmask's SIG_SETMASK.
const sigSetMask = 2
