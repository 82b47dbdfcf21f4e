package validators

import "testing"

func TestSort(t *testing.T) {
	runCases(t, []vcase{
		{args("sort", "a.txt"), ""},
		{args("sort"), ""},
		{args("sort", "-"), ""},
		{args("sort", "-rn", "-k", "2,2", "-t", ",", "a.txt", "b.txt"), ""},
		{args("sort", "-k2n", "--key=3,3r", "-u", "a.txt"), ""},
		{args("sort", "-bdfgiMhnRrVsuz", "a.txt"), ""},
		{args("sort", "--sort=version", "--stable", "--debug", "a.txt"), ""},
		{args("sort", "-c", "a.txt"), ""},
		{args("sort", "-C", "a.txt"), ""},
		{args("sort", "--check", "a.txt"), ""},
		{args("sort", "--check=quiet", "a.txt"), ""},
		{args("sort", "-m", "--batch-size=4", "a.txt", "b.txt"), ""},
		{args("sort", "-S", "50%", "--parallel=2", "a.txt"), ""},
		{args("sort", "-o", "a.txt", "a.txt"), ""},
		{args("sort", "a.txt", "-o", "sorted.txt"), ""}, // GNU sort permutes
		{args("sort", "--output=dir/sorted", "a.txt"), ""},
		{args("sort", "-T", "dir", "a.txt"), ""},
		{args("sort", "--temporary-directory=.", "a.txt"), ""},
		{args("sort", "-R", "--random-source=b.txt", "a.txt"), ""},
		{args("sort", "--", "-o"), ""}, // a file named -o, read
		{args("sort", "--help"), ""},

		// Runs a program; names files vtexec cannot see.
		{args("sort", "--compress-program=sh", "a.txt"), CodeForbiddenFlag},
		{args("sort", "--compress-program", "gzip", "a.txt"), CodeForbiddenFlag},
		{args("sort", "--files0-from=list", "a.txt"), CodeForbiddenFlag},
		{args("sort", "--files0-from", "-"), CodeForbiddenFlag},
		// Writes and reads are confined.
		{args("sort", "-o", "/tmp/x", "a.txt"), "outside_workspace"},
		{args("sort", "-o/etc/passwd", "a.txt"), "outside_workspace"},
		{args("sort", "-uo", "../x", "a.txt"), "outside_workspace"},
		{args("sort", "-o", ".git/config", "a.txt"), "protected_path"},
		{args("sort", "--output=.git/hooks/pre-commit", "a.txt"), "protected_path"},
		{args("sort", "-o", "out/passwd", "a.txt"), "outside_workspace"},
		{args("sort", "-T", "/tmp", "a.txt"), "outside_workspace"},
		{args("sort", "-T", ".git", "a.txt"), "protected_path"},
		{args("sort", "--random-source=/dev/urandom", "-R", "a.txt"), "outside_workspace"},
		{args("sort", "/etc/passwd"), "outside_workspace"},
		{args("sort", "a.txt", "out/shadow"), "outside_workspace"},
		// Unknown, abbreviated, or malformed.
		{args("sort", "--compress", "gzip"), CodeUnknownFlag},
		{args("sort", "--out=x", "a.txt"), CodeUnknownFlag},
		{args("sort", "-y", "a.txt"), CodeUnknownFlag},
		{args("sort", "-o"), CodeBadUsage},
		{args("sort", "--parallel=many"), CodeBadUsage},
		{args("sort", "--reverse=1"), CodeBadUsage},
	})
}
