package validators

import "testing"

func TestComm(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("comm file.txt README.md"), ""},
		{splitArgv("comm -12 file.txt README.md"), ""},
		{splitArgv("comm -3 --nocheck-order - file.txt"), ""},
		{splitArgv("comm --check-order --total -z --output-delimiter=| file.txt src/a.txt"), ""},
		{splitArgv("comm --help"), ""},
		{splitArgv("comm file.txt /etc/passwd"), codeOutside},
		{splitArgv("comm out/group file.txt"), codeOutside},
		{splitArgv("comm -4 file.txt README.md"), CodeUnknownFlag},
		{splitArgv("comm --output-delim=x file.txt README.md"), CodeUnknownFlag},
		{splitArgv("comm --output-delimiter"), CodeBadUsage},
	})
}
