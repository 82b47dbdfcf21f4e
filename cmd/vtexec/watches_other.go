//go:build !linux

package main

import "errors"

// closeOthersOnExec: only Linux has watches to hand off.
func closeOthersOnExec() error { return errors.New("not on this system") }
