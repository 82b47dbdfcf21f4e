package validators

import "testing"

func TestCmp(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("cmp file.txt README.md"), ""},
		{splitArgv("cmp file.txt"), ""}, // the second file is standard input
		{splitArgv("cmp - file.txt"), ""},
		{splitArgv("cmp -s file.txt src/a.txt"), ""},
		{splitArgv("cmp -bl -n 100 file.txt src/a.txt"), ""},
		{splitArgv("cmp -i 10:0x20 file.txt src/a.txt"), ""},
		{splitArgv("cmp --ignore-initial=1K --bytes=1MB --print-bytes --verbose file.txt src/a.txt"), ""},
		{splitArgv("cmp --quiet --silent -c file.txt src/a.txt"), ""},
		{splitArgv("cmp file.txt src/a.txt 10 20"), ""}, // skips, not files
		{splitArgv("cmp file.txt src/a.txt /etc/passwd"), ""},
		{splitArgv("cmp --help"), ""},
		{splitArgv("cmp -v"), ""},
		{splitArgv("cmp file.txt /etc/passwd"), codeOutside},
		{splitArgv("cmp out/passwd file.txt"), codeOutside},
		{splitArgv("cmp ../x"), codeOutside},
		{splitArgv("cmp file.txt src/a.txt 1 2 3"), CodeBadUsage},
		{splitArgv("cmp -x file.txt src/a.txt"), CodeUnknownFlag},
		{splitArgv("cmp --ignore file.txt src/a.txt"), CodeUnknownFlag},
		{splitArgv("cmp -n"), CodeBadUsage},
	})
}
