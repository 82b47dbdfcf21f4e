package validators

import "testing"

func TestDate(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("date"), ""},
		{splitArgv("date -u"), ""},
		{splitArgv("date +%Y-%m-%d"), ""},
		{[]string{"date", "+%s %N"}, ""},
		{splitArgv("date -Iseconds"), ""},
		{splitArgv("date -I"), ""},
		{splitArgv("date --iso-8601=ns --utc"), ""},
		{splitArgv("date -R --rfc-3339=seconds --rfc-822 --rfc-2822 --universal --uct"), ""},
		{[]string{"date", "-d", "yesterday", "+%F"}, ""},
		{[]string{"date", "--date=@0", "--debug"}, ""},
		{[]string{"date", "-d", `TZ="Europe/Paris" 2024-01-01 12:00`}, ""},
		{[]string{"date", "-d", `TZ=":America/New_York" now`}, ""},
		{[]string{"date", "-d", "TZ=/etc/passwd now"}, ""}, // not a TZ="..." prefix
		{splitArgv("date -r file.txt"), ""},
		{splitArgv("date --reference=src/a.txt +%s"), ""},
		{splitArgv("date -f file.txt"), ""},
		{splitArgv("date -f -"), ""},
		{splitArgv("date --resolution"), ""},
		{splitArgv("date --help"), ""},
		{splitArgv("date --version"), ""},

		// Setting the clock.
		{splitArgv("date -s 2000-01-01"), CodeForbiddenFlag},
		{splitArgv("date --set=tomorrow"), CodeForbiddenFlag},
		{splitArgv("date -us now"), CodeForbiddenFlag},
		{splitArgv("date 010100002000"), CodeForbiddenFlag},
		{splitArgv("date -u 0101"), CodeForbiddenFlag},
		{splitArgv("date -d now 0101"), CodeForbiddenFlag},
		{splitArgv("date +%s +%s"), CodeBadUsage},
		// Files.
		{splitArgv("date -r /etc/shadow"), codeOutside},
		{splitArgv("date --reference=out/passwd"), codeOutside},
		{splitArgv("date -f ../dates"), codeOutside},
		{splitArgv("date --file=/etc/passwd"), codeOutside},
		// Time zone files named by path.
		{[]string{"date", "-d", `TZ="/etc/passwd" now`}, CodeForbiddenFlag},
		{[]string{"date", "-d", `  TZ=":/home/u/.ssh/id_rsa" now`}, CodeForbiddenFlag},
		{[]string{"date", "--date", `TZ="../../../../tmp/x"`}, CodeForbiddenFlag},
		{[]string{"date", "-d", `TZ="\/etc/passwd" now`}, CodeForbiddenFlag},
		{[]string{"date", "-d", `TZ="Europe/..\/..\/..\/x"`}, CodeForbiddenFlag},
		// Flags.
		{splitArgv("date --iso=ns"), CodeUnknownFlag},
		{splitArgv("date -x"), CodeUnknownFlag},
		{splitArgv("date --rfc-3339"), CodeBadUsage},
		{splitArgv("date -d"), CodeBadUsage},
	})
}

func TestDateTZPath(t *testing.T) {
	for in, want := range map[string]bool{
		`TZ="UTC" now`:              false,
		`TZ="Europe/Paris"`:         false,
		`TZ=":Asia/Tokyo"`:          false,
		`TZ="/etc/passwd"`:          true,
		`TZ=":/etc/passwd"`:         true,
		`TZ="a\"b/../c"`:            true,
		`TZ="a\\" ../x`:             false, // the zone ends at the unescaped quote
		`TZ="..`:                    true,
		"\t\nTZ=\"/x\"":             true,
		`now TZ="/x"`:               false, // only a leading TZ= is read as a zone
		`tz="/x"`:                   false,
		`TZ="Etc/GMT+5" 2024-01-01`: false,
	} {
		_, got := dateTZPath(in)
		if got != want {
			t.Errorf("dateTZPath(%q) = %v, want %v", in, got, want)
		}
	}
}
