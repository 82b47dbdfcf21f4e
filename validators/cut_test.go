package validators

import "testing"

func TestCut(t *testing.T) {
	runCases(t, []vcase{
		{args("cut", "-d", ",", "-f", "1,3", "a.txt"), ""},
		{args("cut", "-d:", "-f1"), ""},
		{args("cut", "-c", "1-10", "a.txt", "b.txt"), ""},
		{args("cut", "-b", "-5", "-"), ""},
		{args("cut", "--fields=2-", "--delimiter=\t", "--only-delimited", "a.txt"), ""},
		{args("cut", "-f2", "--complement", "--output-delimiter=|", "-z", "a.txt"), ""},
		{args("cut", "-n", "-b", "1", "a.txt"), ""},
		{args("cut", "a.txt", "-f", "1"), ""},
		{args("cut", "--version"), ""},

		{args("cut", "-f1", "/etc/passwd"), "outside_workspace"},
		{args("cut", "-f1", "out/passwd"), "outside_workspace"},
		{args("cut", "-f1", "a.txt", "../x"), "outside_workspace"},
		{args("cut", "-x", "a.txt"), CodeUnknownFlag},
		{args("cut", "--field=1", "a.txt"), CodeUnknownFlag},
		{args("cut", "-f"), CodeBadUsage},
		{args("cut", "--complement=1", "a.txt"), CodeBadUsage},
	})
}
