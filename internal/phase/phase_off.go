//go:build !vtexecphases || !unix

package phase

// Enabled is whether marks are kept (the vtexecphases tag).
const Enabled = false

// Mark does nothing without the vtexecphases tag.
func Mark(string) {}

// Write does nothing without the vtexecphases tag.
func Write() {}
