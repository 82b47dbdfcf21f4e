//go:build !windows

package fsutil

import (
	"errors"
	"os"
	"syscall"
)

const oNoFollow = syscall.O_NOFOLLOW | syscall.O_CLOEXEC

func lockFile(f *os.File) error   { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// sysIdentity is the device, inode, owner and change time a stat gives.
func sysIdentity(fi os.FileInfo) (dev, ino uint64, uid, gid uint32, ctimeNs int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino), st.Uid, st.Gid, ctime(st)
	}
	return 0, 0, 0, 0, 0
}

// LinkCount is how many names the file has.
func LinkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func notADirectory(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// OpenRegular opens path with flag (O_CREAT with perm allowed) the way
// ReadRegular does: without blocking, without following a final link
// unless follow is set, and only if it is a regular file. The returned
// file is in blocking mode again.
func OpenRegular(path string, flag int, perm os.FileMode, follow bool) (*os.File, Identity, error) {
	flag |= syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if !follow {
		flag |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flag, uint32(perm.Perm()))
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err == syscall.ELOOP && !follow:
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, Identity{}, &FileError{path, "is a symbolic link, which vtexec does not follow here"}
		}
	case err == syscall.ENXIO:
		return nil, Identity{}, &FileError{path, "is not a regular file (a FIFO or socket)"}
	}
	if err != nil {
		return nil, Identity{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// Blocking again before os.NewFile, which otherwise starts Go's
	// network poller for a descriptor it cannot poll (epoll refuses
	// regular files): four system calls, and a poller every later
	// scheduling round checks.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, Identity{}, err
	}
	return regularOnly(os.NewFile(uintptr(fd), path), path)
}

// ownedByMe reports whether the file belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
