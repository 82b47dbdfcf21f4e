//go:build linux

package confine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Entries that vanish between listing and stat (another process
// collecting) leave fewer than were listed: nothing to drop, no panic.
func TestOldestBeyond(t *testing.T) {
	assert.Empty(t, oldestBeyond([]keptNS{{"a", 1}}, 2))
	assert.Empty(t, oldestBeyond(nil, 2))
	got := oldestBeyond([]keptNS{{"c", 3}, {"a", 1}, {"d", 1 << 62}, {"b", 2}}, 2)
	assert.Equal(t, []keptNS{{"a", 1}, {"b", 2}}, got)
}
