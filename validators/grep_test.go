package validators

import "testing"

func TestGrep(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("grep -rn TODO src"), ""},
		{splitArgv("grep TODO file.txt README.md"), ""},
		{splitArgv("grep TODO"), ""},
		{splitArgv("grep TODO -"), ""},
		{splitArgv("grep -e TODO -e FIXME -r ."), ""},
		{splitArgv("grep -eTODO -r"), ""},
		{splitArgv("grep -c TODO src/a.txt"), ""},
		{splitArgv("grep -rf pats.txt ."), ""},
		{splitArgv("grep --file=pats.txt -r"), ""},
		{splitArgv("grep -f - src/a.txt"), ""},
		{splitArgv("grep -E a|b -o -w -x -i file.txt"), ""},
		{splitArgv("grep -5 TODO file.txt"), ""},
		{splitArgv("grep -5n TODO file.txt"), ""},
		{splitArgv("grep -n15 TODO file.txt"), ""},
		{splitArgv("grep -C2 -A 1 --before-context=3 TODO file.txt"), ""},
		{splitArgv("grep --color TODO file.txt"), ""},
		{splitArgv("grep --color=always TODO file.txt"), ""},
		{splitArgv("grep --colour=never TODO file.txt"), ""},
		{[]string{"grep", "-r", "--include", "*.go", "--exclude-dir", ".git", "TODO", "."}, ""},
		{splitArgv("grep -r --exclude-from=pats.txt TODO ."), ""},
		{splitArgv("grep -d skip -D read TODO file.txt"), ""},
		{splitArgv("grep -lLqsZzTbHhUIa TODO file.txt"), ""},
		{splitArgv("grep -m 3 --label=x -y TODO"), ""},
		{splitArgv("grep -- -R file.txt"), ""}, // -R is the pattern
		{splitArgv("grep -e -R file.txt"), ""},
		{splitArgv("grep TODO src/a.txt -n"), ""}, // GNU grep permutes
		{splitArgv("grep --help"), ""},

		// -R follows symbolic links: "out" at the root leads to /etc.
		{splitArgv("grep -R x ."), codeOutside},
		{splitArgv("grep -R x"), codeOutside},
		{splitArgv("grep -Rn x src"), ""},
		{splitArgv("grep -nR x"), codeOutside},
		{splitArgv("grep --dereference-recursive x ."), codeOutside},
		// Abbreviations and unknown flags.
		{splitArgv("grep --colo TODO file.txt"), CodeUnknownFlag},
		{splitArgv("grep --recurs TODO"), CodeUnknownFlag},
		{splitArgv("grep -X grep TODO"), CodeUnknownFlag},
		{splitArgv("grep -K x"), CodeUnknownFlag},
		// Values.
		{splitArgv("grep -m many x file.txt"), CodeBadUsage},
		{splitArgv("grep -C"), CodeBadUsage},
		{splitArgv("grep --count=2 x"), CodeBadUsage},
		// Paths.
		{splitArgv("grep -rf ../pats x ."), codeOutside},
		{splitArgv("grep -f /etc/passwd x ."), codeOutside},
		{splitArgv("grep -f out/passwd x"), codeOutside},
		{splitArgv("grep x /etc/passwd"), codeOutside},
		{splitArgv("grep -r x out"), codeOutside},
		{splitArgv("grep -r x src .."), codeOutside},
		{splitArgv("grep -e x /etc/passwd"), codeOutside},
		{splitArgv("grep -r --exclude-from=/etc/passwd x ."), codeOutside},
		{splitArgv("grep x file.txt /proc/self/environ"), codeOutside},
	})
}
