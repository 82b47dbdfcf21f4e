//go:build !windows

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ShareDir holds a shared lock on the directory dir until release:
// TakeDir cannot take it meanwhile. If dir was moved or removed while
// the lock was awaited, it fails with ErrMoved.
func ShareDir(dir string) (release func(), err error) {
	f, err := openDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrMoved
		}
		return nil, err
	}
	if flock(f, syscall.LOCK_SH) != nil {
		// A file system without flock (some network ones): TakeDir
		// fails there too, so nothing is swept under the caller.
		f.Close()
		return func() {}, nil
	}
	// The lock counts only while dir is still the directory locked.
	held, err1 := f.Stat()
	now, err2 := os.Lstat(dir)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, ErrMoved
	}
	return func() { f.Close() }, nil
}

// TakeDir takes the exclusive lock on the directory dir if no one holds
// a lock on it, and says whether it did.
func TakeDir(dir string) (release func(), ok bool) {
	f, err := openDir(dir)
	if err != nil {
		return nil, false
	}
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

func openDir(dir string) (*os.File, error) {
	return os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
