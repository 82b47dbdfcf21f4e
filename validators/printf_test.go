package validators

import "testing"

func TestPrintf(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("printf %s\\n hello"), ""},
		{[]string{"printf", "%d items in %s\n", "3", "/etc/passwd"}, ""}, // text, never opened
		{[]string{"printf", "-v", "x", "%s"}, ""},                        // coreutils: "-v" is the format
		{[]string{"printf", "%n"}, ""},                                   // coreutils refuses %n itself
		{[]string{"printf", "--", "%s", "x"}, ""},
		{splitArgv("printf --help"), ""},
		{splitArgv("printf --version"), ""},
	})
}
