package validators

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// builtAtInit records, once every init function of the package has run,
// whether any of the catalogue was already built.
var builtAtInit bool

func init() {
	builtAtInit = len(registry) > 0 || gitCmds != nil
	// Some tests read package tables (entries, gitCmds) without going
	// through Lookup; build the catalogue for them.
	build()
	gitCommands()
}

// TestCatalogueNotBuiltAtInit guards the startup cost: the catalogue is
// built on the first Lookup (of the program looked up) or Catalogue, not
// when the package loads.
func TestCatalogueNotBuiltAtInit(t *testing.T) {
	if builtAtInit {
		t.Fatal("the validator catalogue was built at init; add programs in a registration listed in programs")
	}
	if _, ok := Lookup("cat"); !ok {
		t.Fatal("cat is not in the catalogue")
	}
	if gitCmds["status"] == nil || jqLong["arg"] == nil {
		t.Fatal("the git and jq tables are not built with the catalogue")
	}
}

// TestProgramsTable holds the programs table to the registrations: each
// program is added by the registration the table names, and every
// program a registration adds is in the table.
func TestProgramsTable(t *testing.T) {
	saved, savedEntries := registry, entries
	defer func() { registry, entries = saved, savedEntries }()
	added := map[string]bool{}
	done := map[*registration]bool{}
	for _, p := range programs {
		if done[p.reg] {
			continue
		}
		done[p.reg] = true
		registry, entries = nil, nil
		p.reg.add()
		for name := range registry {
			assert.Same(t, p.reg, registrationOf(name), "%s: programs names another registration than the one that adds it", name)
			added[name] = true
		}
	}
	for _, p := range programs {
		assert.True(t, added[p.name], "%s is in programs but no registration adds it", p.name)
	}
	assert.Len(t, added, len(programs))
	assert.True(t, slices.IsSorted(Names()), "programs is not sorted by name")
	_, ok := Lookup("nosuchprogram")
	assert.False(t, ok)
}
