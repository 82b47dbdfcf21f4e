package validators

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogueComesFromTheSpecs(t *testing.T) {
	cat := Catalogue()
	require.Len(t, cat, len(Names()))
	byName := map[string]Entry{}
	for _, e := range cat {
		assert.NotEmpty(t, e.Operands, e.Program)
		byName[e.Program] = e
	}
	refused := func(program, flag string) string {
		for _, r := range byName[program].Refused {
			if r.Flag == flag {
				return r.Reason
			}
		}
		return ""
	}
	assert.NotEmpty(t, refused("rg", "--pre TEXT"))
	assert.NotEmpty(t, refused("find", "-ok"))
	assert.NotEmpty(t, refused("cp", "-l/--link"))
	assert.Contains(t, byName["head"].Allowed, "-n/--lines N")
	assert.Contains(t, byName["head"].Allowed, "-NUM")
	assert.Contains(t, byName["find"].Allowed, "-name")

	// Every refused flag in the catalogue is refused by the validator.
	ws := testWS(t)
	for _, f := range cpSpec.Flags {
		if f.Forbid == "" {
			continue
		}
		assert.Equal(t, CodeForbiddenFlag, checkCode(t, ws, "cp", f.Name(), "a.txt", "b.txt"), f.Name())
	}
}
