//go:build !windows

package serve

import (
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal that neither echoes input nor
// turns "\n" into "\r\n", so what a job's output shows is what its
// programs wrote. The near end is non-blocking, so a read or write on
// it can be given a deadline and ends when it is closed.
func openTerminal() (master, tty *os.File, err error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, *os.File, error) {
		ptmx.Close()
		tty.Close()
		return nil, nil, err
	}
	if err := pty.Setsize(tty, &terminalSize); err != nil {
		return fail(err)
	}
	tfd := int(tty.Fd())
	tio, err := unix.IoctlGetTermios(tfd, ioctlGetTermios)
	if err != nil {
		return fail(err)
	}
	tio.Lflag &^= unix.ECHO | unix.ECHONL
	tio.Oflag &^= unix.ONLCR
	if err := unix.IoctlSetTermios(tfd, ioctlSetTermios, tio); err != nil {
		return fail(err)
	}
	fd, err := unix.FcntlInt(ptmx.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	ptmx.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		tty.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), tty, nil
}
