// Package fsutil holds the two file-system habits vtexec's state files
// share: replace a file atomically, and serialise writers with a lock file.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// staleTemp is how old a temporary file of WriteAtomic must be before a
// later write takes it for the leftover of one that was killed.
const staleTemp = time.Minute

// createTemp creates the temporary file a write of dir/name goes
// through. It is .NAME.tmp-0, found without listing dir (a sessions
// directory holds thousands of files, and listing it cost every
// session's write ~1 ms a thousand); one a killed write left is
// removed once it is staleTemp old. While another write holds that
// name, the temporary file gets a name of its own, and the temporary
// files a killed write left under such names are looked for then.
func createTemp(dir, name string) (*os.File, error) {
	fixed := filepath.Join(dir, "."+name+".tmp-0")
	for range 3 {
		f, err := os.OpenFile(fixed, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
		fi, err := os.Lstat(fixed)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // its write ended a moment ago
		case err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTemp:
			os.Remove(fixed) // a killed write's
			continue
		}
		break
	}
	removeStaleTemps(dir, name)
	return os.CreateTemp(dir, "."+name+".tmp-*")
}

// removeStaleTemps removes the temporary files an interrupted WriteAtomic
// of name left in dir.
func removeStaleTemps(dir, name string) {
	olds, _ := filepath.Glob(filepath.Join(dir, "."+name+".tmp-*"))
	for _, p := range olds {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTemp {
			os.Remove(p)
		}
	}
}

// WriteAtomic replaces path with data: a temporary file in the same
// directory, fsync, rename over path, fsync of the directory. Readers see
// the old content or the new, never a mix.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, true)
}

// WriteAtomicNoSync is WriteAtomic without waiting for the disk: readers
// still see the old content or the new, never a mix, but a crash may lose
// the write. It is for files whose loss costs nothing (a note of when a
// harness last ran the hook, written on every call, where the two fsyncs
// cost 0.8-0.9 ms here and more on many disks; a file of one run's own
// HOME, removed when the run ends).
func WriteAtomicNoSync(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, false)
}

func replace(path string, data []byte, perm os.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Lock takes an exclusive flock on path (created 0600 if missing) and
// returns the function that releases it. The lock file must be a regular
// file; a symbolic link there is refused, not followed.
func Lock(path string) (unlock func(), err error) {
	f, _, err := OpenRegular(path, os.O_RDWR|os.O_CREATE, 0o600, false)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// RealDir returns an error unless dir is a directory itself, not a
// symbolic link to one.
func RealDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &FileError{Path: dir, Reason: "is not a plain directory (a symbolic link or a file), so vtexec does not write in it"}
	}
	return nil
}

// CreateNew writes data to a new file at path. It never follows a link
// and never replaces anything: the parent must be a real directory, and
// if anything (a link included) is at path it fails with an error
// wrapping os.ErrExist.
func CreateNew(path string, data []byte, perm os.FileMode) error {
	if err := RealDir(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// OwnDir makes dir (mode 0700) or accepts it only as a real directory
// of this user's that no one else can write.
func OwnDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is not a private directory of this user", dir)
	}
	return nil
}

// SameFile reports whether a and b (links followed) are one file: the
// same device and inode, whatever the paths that lead to it.
func SameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// Unwritable reports whether err is a file system refusing a write:
// full, read-only, over quota or not ours.
func Unwritable(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EROFS, syscall.EDQUOT, syscall.EACCES, syscall.EPERM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
