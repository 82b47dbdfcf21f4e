package validators

import "testing"

func TestUniq(t *testing.T) {
	runCases(t, []vcase{
		{args("uniq"), ""},
		{args("uniq", "a.txt"), ""},
		{args("uniq", "-c", "a.txt"), ""},
		{args("uniq", "-"), ""},
		{args("uniq", "-", "-"), ""},
		{args("uniq", "a.txt", "-"), ""},
		{args("uniq", "a.txt", "uniq.txt"), ""},
		{args("uniq", "a.txt", "dir/uniq.txt", "-d"), ""},
		{args("uniq", "-cdDiuz", "a.txt"), ""},
		{args("uniq", "--all-repeated", "a.txt"), ""},
		{args("uniq", "--all-repeated=separate", "--group=both", "a.txt"), ""},
		{args("uniq", "-f", "1", "-s2", "-w", "10", "a.txt"), ""},
		{args("uniq", "--skip-fields=1", "--skip-chars=2", "--check-chars=3", "a.txt"), ""},
		{args("uniq", "-2", "a.txt"), ""}, // obsolete -f 2
		{args("uniq", "--", "-c"), ""},    // a file named -c
		{args("uniq", "./+3"), ""},

		// OUTPUT is written.
		{args("uniq", "a.txt", "/tmp/out"), "outside_workspace"},
		{args("uniq", "a.txt", "../out"), "outside_workspace"},
		{args("uniq", "a.txt", ".git/config"), "protected_path"},
		{args("uniq", "-", ".git/hooks/post-checkout"), "protected_path"},
		{args("uniq", "a.txt", "out/cron.d/x"), "outside_workspace"},
		{args("uniq", "/etc/passwd"), "outside_workspace"},
		{args("uniq", "out/passwd", "x"), "outside_workspace"},
		// +N is -s N and moves INPUT and OUTPUT one place.
		{args("uniq", "+0", "a.txt"), CodeForbiddenFlag},
		{args("uniq", "+1", "a.txt", ".git/config"), CodeForbiddenFlag},
		{args("uniq", "--", "+2"), CodeForbiddenFlag},
		// The output is the input: uniq would empty it.
		{args("uniq", "a.txt", "a.txt"), CodeBadUsage},
		{args("uniq", "a.txt", "./dir/../a.txt"), CodeBadUsage},
		// At most two operands.
		{args("uniq", "a.txt", "b.txt", "c.txt"), CodeBadUsage},
		{args("uniq", "-c", "a.txt", "b.txt", "-", "x"), CodeBadUsage},
		// Unknown, abbreviated, or malformed.
		{args("uniq", "--coun", "a.txt"), CodeUnknownFlag},
		{args("uniq", "-x"), CodeUnknownFlag},
		{args("uniq", "-f", "x", "a.txt"), CodeBadUsage},
		{args("uniq", "-w"), CodeBadUsage},
	})
}
