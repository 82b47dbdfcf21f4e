//go:build !linux

package runner

// sparedSIGTERM is false: only Linux boxes give a program a PID
// namespace of its own.
func sparedSIGTERM(int) bool { return false }
