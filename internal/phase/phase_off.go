//go:build !vtexecphases || !unix

package phase

// Enabled is whether marks are kept (the vtexecphases tag).
const Enabled = false

// Now is 0: nothing is measured without the vtexecphases tag.
func Now() int64 { return 0 }

// Mark does nothing without the vtexecphases tag.
func Mark(string) {}

// Write does nothing without the vtexecphases tag.
func Write() {}
