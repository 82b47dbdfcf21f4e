//go:build unix

package phase

import "golang.org/x/sys/unix"

// Clock is CLOCK_MONOTONIC in nanoseconds, the clock marks are noted
// with: the same in every process of the machine, so a parent that
// started a marked process compares its own readings with the marks.
func Clock() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
