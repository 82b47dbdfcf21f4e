package audit

import (
	"fmt"
	"io"

	"golang.org/x/sys/windows"
)

// writeLocked appends line to the file with one WriteFile call while
// holding an exclusive lock on it (the file is opened for appending).
// Windows is not cut back after a short write, unlike Linux.
func writeLocked(handle uintptr, line []byte) error {
	h := windows.Handle(handle)
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		return fmt.Errorf("audit: lock: %w", err)
	}
	defer windows.UnlockFileEx(h, 0, 1, 0, ol)
	var n uint32
	if err := windows.WriteFile(h, line, &n, nil); err != nil {
		return fmt.Errorf("audit: write: %w", err)
	}
	if int(n) != len(line) {
		return fmt.Errorf("audit: write: wrote %d of %d bytes: %w", n, len(line), io.ErrShortWrite)
	}
	return nil
}
