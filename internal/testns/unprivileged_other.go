//go:build !unix

package testns

import "testing"

// Unprivileged reports true: there is no root to step down from here.
func Unprivileged(t *testing.T) bool { return true }
