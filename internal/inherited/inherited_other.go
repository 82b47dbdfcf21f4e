//go:build !linux && !darwin && !freebsd

package inherited

// CloseOnExec does nothing here: on Windows a child inherits only the
// handles it is given.
func CloseOnExec() error { return nil }
