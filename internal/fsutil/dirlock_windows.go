//go:build windows

package fsutil

// ShareDir: Windows keeps a directory in use from being renamed away.
func ShareDir(string) (release func(), err error) { return func() {}, nil }

// TakeDir never takes a directory on Windows: nothing is swept there.
func TakeDir(string) (release func(), ok bool) { return nil, false }
