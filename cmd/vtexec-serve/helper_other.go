//go:build !linux

package main

// useSiblingHelper does nothing here: no helper starts programs.
func useSiblingHelper() {}
