//go:build !linux && !darwin && !windows

package fsutil

import "syscall"

func ctime(*syscall.Stat_t) int64 { return 0 }
