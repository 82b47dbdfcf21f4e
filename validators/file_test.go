package validators

import "testing"

func TestFile(t *testing.T) {
	runCases(t, []vcase{
		{args("file", "a.txt"), ""},
		{args("file", "a.txt", "src/c.go", "dir"), ""},
		{args("file", "-b", "--mime-type", "a.txt"), ""},
		{args("file", "-i", "a.txt"), ""},
		{args("file", "--mime", "--mime-encoding", "--apple", "--extension", "a.txt"), ""},
		{args("file", "-bkLhnN0prsd", "a.txt"), ""},
		{args("file", "-L", "dir/x"), ""}, // operands are resolved already
		{args("file", "-e", "elf", "--exclude-quiet=tar", "a.txt"), ""},
		{args("file", "-F", " | ", "-P", "bytes=1024", "a.txt"), ""},
		{args("file", "-c"), ""},
		{args("file", "-l"), ""},
		{args("file", "-"), ""},
		{args("file", "--version"), ""},
		{args("file", "-v"), ""},
		{args("file", "--help"), ""},

		// Run decompressors, read magic or names from files, write .mgc.
		{args("file", "-z", "a.txt"), CodeForbiddenFlag},
		{args("file", "-bz", "a.txt"), CodeForbiddenFlag},
		{args("file", "--uncompress", "a.txt"), CodeForbiddenFlag},
		{args("file", "-Z", "a.txt"), CodeForbiddenFlag},
		{args("file", "--uncompress-noreport", "a.txt"), CodeForbiddenFlag},
		{args("file", "-m", "a.txt", "b.txt"), CodeForbiddenFlag},
		{args("file", "--magic-file=a.txt:/etc/passwd", "b.txt"), CodeForbiddenFlag},
		{args("file", "-f", "a.txt"), CodeForbiddenFlag},
		{args("file", "--files-from", "-"), CodeForbiddenFlag},
		{args("file", "-C", "-m", "a.txt"), CodeForbiddenFlag},
		{args("file", "--compile"), CodeForbiddenFlag},
		{args("file", "-S", "a.txt"), CodeForbiddenFlag},
		{args("file", "--no-sandbox", "a.txt"), CodeForbiddenFlag},
		// Operands are confined.
		{args("file", "/etc/passwd"), "outside_workspace"},
		{args("file", "out/passwd"), "outside_workspace"},
		{args("file", "-L", "out"), "outside_workspace"},
		{args("file", "a.txt", "../x"), "outside_workspace"},
		// Unknown, abbreviated, or malformed.
		{args("file", "-E", "a.txt"), CodeUnknownFlag},
		{args("file", "--mime-t", "a.txt"), CodeUnknownFlag},
		{args("file", "--uncomp", "a.txt"), CodeUnknownFlag},
		{args("file", "-e"), CodeBadUsage},
		{args("file", "--brief=1", "a.txt"), CodeBadUsage},
	})
}
