//go:build !windows

package audit

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

// writeFD is write(2); tests replace it to inject faults.
var writeFD = syscall.Write

// writeLocked writes line to fd with one write(2) call, holding an
// exclusive flock around it. A line starts on a fresh line even if the
// file does not end in a newline (a record torn by a crash). A failed or
// short write is cut back off the file, so it never leaves a partial line
// that would corrupt the next record.
func writeLocked(handle uintptr, line []byte) error {
	fd := int(handle)
	if err := retryEINTR(func() error { return syscall.Flock(fd, syscall.LOCK_EX) }); err != nil {
		return fmt.Errorf("audit: lock: %w", err)
	}
	defer retryEINTR(func() error { return syscall.Flock(fd, syscall.LOCK_UN) })
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("audit: stat: %w", err)
	}
	size := st.Size
	if size > 0 {
		last := make([]byte, 1)
		if n, err := syscall.Pread(fd, last, size-1); err == nil && n == 1 && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	var n int
	err := retryEINTR(func() (err error) {
		n, err = writeFD(fd, line)
		return err
	})
	if err == nil && n == len(line) {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("wrote %d of %d bytes: %w", n, len(line), io.ErrShortWrite)
	}
	if terr := syscall.Ftruncate(fd, size); terr != nil {
		return fmt.Errorf("audit: write: %w (and cutting the partial line failed: %v)", err, terr)
	}
	return fmt.Errorf("audit: write: %w", err)
}

// retryEINTR calls f until it fails with something other than EINTR. A
// write(2) interrupted by EINTR has written nothing, so retrying it cannot
// duplicate data.
func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
