package validators

import "testing"

func TestTr(t *testing.T) {
	runCases(t, []vcase{
		{args("tr", "a-z", "A-Z"), ""},
		{args("tr", "-d", "\\r"), ""},
		{args("tr", "-s", " "), ""},
		{args("tr", "-cd", "[:alnum:]\\n"), ""},
		{args("tr", "-C", "-s", "a"), ""},
		{args("tr", "--complement", "--delete", "x"), ""},
		{args("tr", "--squeeze-repeats", "--truncate-set1", "abc", "x"), ""},
		{args("tr", "[:upper:]", "[:lower:]"), ""},
		// The sets are text, even when they look like paths.
		{args("tr", "/etc/passwd", "x"), ""},
		{args("tr", "../", "__"), ""},
		// tr stops reading flags at the first set: "-d" here is SET2.
		{args("tr", "b", "-d"), ""},
		{args("tr", "a", "-Z"), ""},
		{args("tr", "--", "-a", "x"), ""},
		{args("tr", "--help"), ""},

		{args("tr", "-x", "a"), CodeUnknownFlag},
		{args("tr", "-A", "a"), CodeUnknownFlag},
		{args("tr", "--del", "a"), CodeUnknownFlag},
		{args("tr", "--delete=a"), CodeBadUsage},
	})
}
