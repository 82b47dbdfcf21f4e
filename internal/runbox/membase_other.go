//go:build !linux

package runbox

// memoryFS: runs' directories go under the system's temporary directory.
func memoryFS() (string, bool) { return "", false }
