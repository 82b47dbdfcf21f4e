package validators

import "testing"

// builtAtInit records, once every init function of the package has run,
// whether the catalogue was already built.
var builtAtInit bool

func init() {
	builtAtInit = registry != nil || gitCmds != nil
	// Some tests read package tables (gitCmds) without going through
	// Lookup; build the catalogue for them.
	build()
	gitCommands()
}

// TestCatalogueNotBuiltAtInit guards the startup cost: the catalogue is
// built on the first Lookup or Names, not when the package loads.
func TestCatalogueNotBuiltAtInit(t *testing.T) {
	if builtAtInit {
		t.Fatal("the validator catalogue was built at init; build it in build(), on first use")
	}
	if _, ok := Lookup("cat"); !ok {
		t.Fatal("cat is not in the catalogue")
	}
	if gitCmds["status"] == nil || jqLong["arg"] == nil {
		t.Fatal("the git and jq tables are not built with the catalogue")
	}
}
