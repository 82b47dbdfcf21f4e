package validators

import "testing"

func TestStat(t *testing.T) {
	runCases(t, []vcase{
		{args("stat", "a.txt"), ""},
		{args("stat", "a.txt", "src", "."), ""},
		{args("stat", "-L", "a.txt"), ""},
		{args("stat", "--dereference", "dir/x"), ""},
		{args("stat", "-c", "%s %n", "a.txt"), ""},
		{args("stat", "-c%a", "a.txt"), ""},
		{args("stat", "--format=%Y", "a.txt"), ""},
		{args("stat", "--printf=%n\\n", "a.txt"), ""},
		{args("stat", "-f", "-t", "."), ""},
		{args("stat", "--file-system", "--terse", "--cached=never", "."), ""},
		{args("stat", "-"), ""},
		{args("stat", "--", "a.txt"), ""},
		{args("stat", "--version"), ""},

		{args("stat", "/etc/passwd"), "outside_workspace"},
		{args("stat", "-L", "out"), "outside_workspace"},
		{args("stat", "out"), "outside_workspace"},
		{args("stat", "-c", "%s", "../x"), "outside_workspace"},
		{args("stat", "-x", "a.txt"), CodeUnknownFlag},
		{args("stat", "--form=%s", "a.txt"), CodeUnknownFlag},
		{args("stat", "-c"), CodeBadUsage},
		{args("stat", "--terse=1", "a.txt"), CodeBadUsage},
	})
}
