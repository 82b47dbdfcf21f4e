package validators

import "testing"

// A stream of checks asks for the profiles of thousands of names no
// table holds: each answer is a value, not a heap copy.
func TestProfileOfUnknownNameAllocatesNothing(t *testing.T) {
	ProfileOf("cat") // the tables, built once
	if n := testing.AllocsPerRun(100, func() { ProfileOf("no-such-program") }); n != 0 {
		t.Errorf("ProfileOf of an unknown name: %v allocations, want 0", n)
	}
}
