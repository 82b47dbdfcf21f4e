package exithold

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// stack is the holder's: it shares this process's memory, so it must not
// run on a stack of this process's goroutines.
var stack [8 << 10]byte

// rootDir is where the holder moves, so that it keeps no directory of
// the caller's in use (a file system to unmount).
var rootDir = [2]byte{'/', 0}

func clonehold(stackTop uintptr, pipe int32, keep int32, root *byte, masks *[2]uint64) (pid int64)

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
	// With descriptors to close after the exit, keep goes with them and
	// the holder keeps the socket that holds them all.
	if recv := closing.takeReceiver(keep); recv >= 0 {
		defer syscall.Close(recv)
		k = int32(recv)
	}
	top := (uintptr(unsafe.Pointer(&stack[len(stack)-1])) + 1) &^ 15
	// Every signal blocked on this thread across the clone, which the
	// holder inherits: a signal handler of Go's would run in it without
	// a Go runtime.
	masks := [2]uint64{^uint64(0), 0}
	pid := clonehold(top, int32(p[0]), k, &rootDir[0], &masks)
	runtime.KeepAlive(keep)
	if pid <= 0 {
		syscall.Close(p[1])
		return 0
	}
	return int(pid)
}

// afterExit holds the descriptors CloseAfterExit was given, in flight in
// a socket pair whose receiving end the holder keeps: a descriptor sent
// with SCM_RIGHTS and never received stays open until that socket is
// closed, by the holder as it ends.
type afterExit struct {
	sync.Mutex
	send, recv int // -1 until the first CloseAfterExit
	n          int
}

var closing = afterExit{send: -1, recv: -1}

// maxClosing bounds the descriptors held for after the exit.
const maxClosing = 64

// CloseAfterExit closes f now and lets what it refers to go once this
// process has exited, in the holder Hold starts (or, without one, as the
// process exits), and reports whether it did: false, f is left as it
// was. It is for a descriptor whose last close is slow, such as a mount
// namespace's (its teardown waits for an RCU grace period), in a process
// about to exit.
func CloseAfterExit(f *os.File) bool {
	closing.Lock()
	defer closing.Unlock()
	if closing.n >= maxClosing {
		return false
	}
	if closing.send < 0 {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return false
		}
		closing.send, closing.recv = fds[0], fds[1]
	}
	if closing.put(f) != nil {
		return false
	}
	closing.n++
	f.Close()
	return true
}

// put sends f into the socket, where it stays in flight.
func (c *afterExit) put(f *os.File) error {
	return syscall.Sendmsg(c.send, []byte{0}, syscall.UnixRights(int(f.Fd())), nil, syscall.MSG_DONTWAIT)
}

// takeReceiver sends keep (if any) after the descriptors held for after
// the exit and returns the socket that holds them, the caller's to
// close, and nothing more is taken; -1 if none are held, or keep could
// not be sent (then they go as this process exits).
func (c *afterExit) takeReceiver(keep *os.File) int {
	c.Lock()
	defer c.Unlock()
	if c.recv < 0 {
		return -1
	}
	if keep != nil && c.put(keep) != nil {
		return -1
	}
	syscall.Close(c.send)
	recv := c.recv
	c.send, c.recv, c.n = -1, -1, maxClosing // the holder has them
	return recv
}
