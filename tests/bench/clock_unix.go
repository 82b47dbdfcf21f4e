//go:build unix

package main

import "golang.org/x/sys/unix"

// clock is CLOCK_MONOTONIC, the clock internal/phase marks with.
func clock() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		fail(err)
	}
	return ts.Nano()
}
