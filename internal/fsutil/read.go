package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// FileError is a file vtexec refuses to read or write: not a regular
// file, a symbolic link where none is followed, or too large.
type FileError struct {
	Path   string
	Reason string
}

func (e *FileError) Error() string { return e.Path + ": " + e.Reason }

// Identity is what a stat says about a file: enough to tell that it
// changed (a new file renamed in, or a write in place). The zero value is
// a missing file. Identities are comparable with ==.
type Identity struct {
	Exists bool
	Dev    uint64
	Ino    uint64
	Mode   os.FileMode
	Uid    uint32 // the owner; 0 where the system does not say
	Gid    uint32
	Size   int64
	Mtime  int64 // ns
	Ctime  int64 // ns; 0 where the system does not say
}

// Recent reports whether the file changed less than d before now. A file
// that changes again within one timestamp tick keeps its identity, so
// only a file that has not changed for a while may be judged by it.
func (id Identity) Recent(now time.Time, d time.Duration) bool {
	limit := now.Add(-d).UnixNano()
	return id.Exists && (id.Mtime > limit || id.Ctime > limit)
}

func identityOf(fi os.FileInfo) Identity {
	id := Identity{Exists: true, Mode: fi.Mode(), Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	id.Dev, id.Ino, id.Uid, id.Gid, id.Ctime = sysIdentity(fi)
	return id
}

// Stat returns the identity of path, following a final symbolic link
// only if follow is set. A missing file (no such entry, or a file where a
// directory on the way should be) is the zero Identity, not an error.
func Stat(path string, follow bool) (Identity, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(path)
	if errors.Is(err, os.ErrNotExist) || notADirectory(err) {
		return Identity{}, nil
	}
	if err != nil {
		return Identity{}, err
	}
	return identityOf(fi), nil
}

// ReadRegular reads the regular file at path, at most max bytes, and
// returns its content and the identity of the file it read (taken before
// reading, so a later change shows as a different identity).
//
// It never blocks and never reads without bound: the file is opened with
// O_NONBLOCK (a FIFO or device does not wait for a writer), must be a
// regular file, and may hold at most max bytes. A final symbolic link is
// followed only if follow is set, and then what it leads to must be a
// regular file too. A missing file is an error wrapping os.ErrNotExist;
// the refusals are *FileError.
func ReadRegular(path string, max int64, follow bool) ([]byte, Identity, error) {
	f, id, err := OpenRegular(path, os.O_RDONLY, 0, follow)
	if err != nil {
		return nil, Identity{}, err
	}
	defer f.Close()
	if id.Size > max {
		return nil, Identity{}, &FileError{path, fmt.Sprintf("is %d bytes, more than the %d bytes vtexec reads", id.Size, max)}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, Identity{}, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, Identity{}, &FileError{path, fmt.Sprintf("grew past the %d bytes vtexec reads", max)}
	}
	return data, id, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// regularOnly returns the open file f with its identity if it is a
// regular file; otherwise it closes f and refuses.
func regularOnly(f *os.File, path string) (*os.File, Identity, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Identity{}, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, Identity{}, &FileError{path, fmt.Sprintf("is not a regular file (%s)", kind(fi.Mode()))}
	}
	return f, identityOf(fi), nil
}
