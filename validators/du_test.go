package validators

import "testing"

func TestDu(t *testing.T) {
	runCases(t, []vcase{
		{args("du"), ""},
		{args("du", "-sh", "."), ""},
		{args("du", "-sh", "src", "dir"), ""},
		{args("du", "-h", "-d", "1"), ""},
		{args("du", "--max-depth=2", "--apparent-size", "-c", "."), ""},
		{args("du", "-0abcDHhklmPSsx", "."), ""},
		{args("du", "-B", "M", "--block-size=1K", "--si", "--inodes"), ""},
		{args("du", "-t", "-1M", "--threshold=10K", "."), ""},
		{args("du", "--time", "--time=ctime", "--time-style=+%F", "."), ""},
		{args("du", "--exclude=*.o", "--exclude", ".git", "-X", "a.txt", "."), ""},
		{args("du", "--exclude-from=-", "."), ""},
		{args("du", "-D", "src"), ""}, // operands are resolved already
		{args("du", "--help"), ""},

		{args("du", "-L", "."), CodeForbiddenFlag},
		{args("du", "-shL"), CodeForbiddenFlag},
		{args("du", "--dereference", "."), CodeForbiddenFlag},
		{args("du", "--files0-from=list"), CodeForbiddenFlag},
		{args("du", "--files0-from", "-"), CodeForbiddenFlag},
		{args("du", "-sh", "/"), "outside_workspace"},
		{args("du", "-sh", ".."), "outside_workspace"},
		{args("du", "-sh", "out"), "outside_workspace"},
		{args("du", "-D", "out"), "outside_workspace"},
		{args("du", "-X", "/etc/passwd", "."), "outside_workspace"},
		{args("du", "--exclude-from=../x", "."), "outside_workspace"},
		{args("du", "--max-depth=x"), CodeBadUsage},
		{args("du", "-d"), CodeBadUsage},
		{args("du", "--summ"), CodeUnknownFlag},
		{args("du", "-g"), CodeUnknownFlag},
	})
}
