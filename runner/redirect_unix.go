//go:build !windows

package runner

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// openRedirect opens the file of a Write, Append or Read redirect. vtexec
// opens it outside the box, so it pins the directory first, checks where
// the kernel says that directory is (inside the workspace, and for a
// write not protected), and opens the name in it without following a
// symlink: swapping the directory or the name for a link between the
// check and the open leads nowhere new. It opens with O_NONBLOCK, which
// it then clears, so that a FIFO without a peer fails or is handed to the
// command instead of blocking the runner beyond the timeout.
func openRedirect(rd plan.Redirect, ws *workspace.Workspace) (*os.File, error) {
	flags, err := openFlags(rd)
	if err != nil {
		return nil, err
	}
	flags |= syscall.O_NOFOLLOW | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	var fd int
	if rd.Path == os.DevNull {
		fd, err = openRetry(unix.AT_FDCWD, rd.Path, flags)
	} else {
		fd, err = openBeneath(rd, ws, flags)
	}
	if err != nil {
		return nil, redirectError(rd.Path, err)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		_ = syscall.Close(fd)
		return nil, redirectError(rd.Path, err)
	}
	return os.NewFile(uintptr(fd), rd.Path), nil
}

// openRetry is openat(2), retried on EINTR.
func openRetry(dirfd int, path string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, path, flags, 0o644)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
