package validators

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLn(t *testing.T) {
	runCases(t, []vcase{
		{args("ln", "-s", "/etc", "etc"), CodeForbidden},
		{args("ln", "a.txt", "hard"), CodeForbidden},
		{args("ln", "-sf", "src", "lib"), CodeForbidden},
		{args("ln", "--help"), CodeForbidden},
		{args("ln"), CodeForbidden},
	})
	e := entries["ln"]()
	assert.Contains(t, e.Operands, "refused")
	assert.Empty(t, e.Allowed)
}
