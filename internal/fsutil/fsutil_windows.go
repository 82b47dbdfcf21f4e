//go:build windows

package fsutil

import (
	"os"

	"golang.org/x/sys/windows"
)

// Windows has no O_NOFOLLOW: CreateNew's O_EXCL fails on anything at
// the path, a link included.
const oNoFollow = 0

func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}

func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// sysIdentity: a stat on Windows gives no device, inode or owner here.
func sysIdentity(os.FileInfo) (dev, ino uint64, uid, gid uint32, ctimeNs int64) { return 0, 0, 0, 0, 0 }

// LinkCount: Windows's stat here does not say; one name.
func LinkCount(os.FileInfo) uint64 { return 1 }

func notADirectory(error) bool { return false }

// OpenRegular opens path with flag (O_CREATE with perm allowed) only if
// it is a regular file, not following a final link unless follow is
// set. (Windows opens no FIFO that would block.)
func OpenRegular(path string, flag int, perm os.FileMode, follow bool) (*os.File, Identity, error) {
	if !follow {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, Identity{}, &FileError{path, "is a symbolic link, which vtexec does not follow here"}
		}
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, Identity{}, err
	}
	return regularOnly(f, path)
}

// ownedByMe: a stat on Windows names no owner; the per-user temporary
// directory vtexec uses is the user's own.
func ownedByMe(os.FileInfo) bool { return true }
