package validators

import "testing"

func TestTrivial(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("true"), ""},
		{splitArgv("true --anything /etc/passwd"), ""},
		{splitArgv("true --help"), ""},
		{splitArgv("false"), ""},
		{splitArgv("false -x ../y"), ""},
		{splitArgv("false --version"), ""},

		{splitArgv("seq 10"), ""},
		{splitArgv("seq 1 2 10"), ""},
		{splitArgv("seq -5 5"), ""},
		{splitArgv("seq -5 -1 -10"), ""},
		{splitArgv("seq -.5 1"), ""},
		{splitArgv("seq -w 1 10"), ""},
		{splitArgv("seq -s , 3"), ""},
		{splitArgv("seq -s, -f %03g 3"), ""},
		{splitArgv("seq -f -5 3"), ""}, // "-5" is -f's value
		{splitArgv("seq -ws: 1 3"), ""},
		{splitArgv("seq --format=%.2f --separator=; --equal-width 1 0.5 2"), ""},
		{splitArgv("seq --format %g 1 3"), ""},
		{splitArgv("seq -- -1 1"), ""},
		{splitArgv("seq 1 -x"), ""}, // options end at the first operand: "-x" is a (bad) number
		{splitArgv("seq --help"), ""},
		{splitArgv("seq --version"), ""},
		{splitArgv("seq -x 3"), CodeUnknownFlag},
		{splitArgv("seq --form=%g 3"), CodeUnknownFlag},
		{splitArgv("seq -w -q 3"), CodeUnknownFlag},
		{splitArgv("seq -f"), CodeBadUsage},
		{splitArgv("seq --equal-width=1 3"), CodeBadUsage},
	})
}
