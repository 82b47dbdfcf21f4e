//go:build !linux

package vtexec

// memoryFS: runs' directories go under the system's temporary directory.
func memoryFS() (string, bool) { return "", false }
