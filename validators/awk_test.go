package validators

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAwk(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		// Everyday programs.
		{[]string{"awk", "{print $1}", "file.txt"}, ""},
		{[]string{"awk", "-F:", "{print $1, $NF}", "file.txt"}, ""},
		{[]string{"awk", "-F", ",", "-v", "OFS=\t", "{$1=$1; print}", "file.txt"}, ""},
		{[]string{"awk", "-vn=3", "NR<=n", "file.txt", "src/a.txt"}, ""},
		{[]string{"awk", "NR==FNR{a[$1]; next} $1 in a", "file.txt", "src/a.txt"}, ""},
		{[]string{"awk", "$3 > 100 {print $1}", "file.txt"}, ""},        // a comparison in a pattern
		{[]string{"awk", "{ if ($2 >= 10) print $1 }", "file.txt"}, ""}, // and in a condition
		{[]string{"awk", "{print ($1 > $2)}", "file.txt"}, ""},          // parenthesised inside print
		{[]string{"awk", "{ s += $2 } END { printf \"%d\\n\", s / NR }"}, ""},
		{[]string{"awk", "/TODO|FIXME/ {n++} END {print n+0}", "-"}, ""}, // "|" inside a regex
		{[]string{"awk", "$0 ~ /a\\/b/ || /[[:digit:]]+/", "file.txt"}, ""},
		{[]string{"awk", "/[\\/]/", "file.txt"}, ""}, // an escaped "/" in brackets
		{[]string{"awk", "{ x = $1 / 2; y = x / 3; print x, y }", "file.txt"}, ""},
		{[]string{"awk", "{ print length() / 2, (length) / 2 }", "file.txt"}, ""},
		{[]string{"awk", "{ print length / 2 }", "file.txt"}, CodeBadUsage}, // mawk: a regular expression
		{[]string{"awk", "{ x++ / 2 }", "file.txt"}, CodeBadUsage},
		{[]string{"awk", "{ print length /\"/; print > \"f\"; x = \"/ }"}, CodeBadUsage},
		{[]string{"awk", "{ a[$1]++ } END { for (k in a) print k, a[k] | \"sort\" }"}, CodeForbiddenFlag},
		{[]string{"awk", "BEGIN { print \"usage\" > \"/dev/stderr\"; exit 1 }"}, ""},
		{[]string{"awk", "{ printf \"%s\\n\", $1 > \"/dev/stdout\" }"}, ""},
		{[]string{"awk", "{ print $1\n  if ($2 > 3) n++ }", "file.txt"}, ""}, // a newline ends print
		{[]string{"awk", "# a comment with | and > and system\n{print}", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "# a comment with | and >\n{print}", "file.txt"}, ""},
		{[]string{"awk", "{print}", "FS=,", "file.txt"}, ""}, // an assignment operand
		{[]string{"awk", "--", "{print}", "file.txt"}, ""},
		{[]string{"awk", "{print}", "-"}, ""},
		{[]string{"awk", "{print}", "file.txt", "-f", "x"}, ""}, // after the program: an operand (a file name)

		// Running commands.
		{[]string{"awk", "BEGIN { system(\"id\") }"}, CodeForbiddenFlag},
		{[]string{"awk", "BEGIN { system (\"id\") }"}, CodeForbiddenFlag},
		{[]string{"awk", "{ print | \"sh\" }"}, CodeForbiddenFlag},
		{[]string{"awk", "{ print |& \"sh\" }"}, CodeForbiddenFlag},
		{[]string{"awk", "BEGIN { \"id\" | getline x; print x }"}, CodeForbiddenFlag},
		{[]string{"awk", "BEGIN { f = \"system\"; @f(\"id\") }"}, CodeForbiddenFlag},
		{[]string{"awk", "@load \"filefuncs\"\nBEGIN { }"}, CodeForbiddenFlag},
		{[]string{"awk", "@include \"x.awk\""}, CodeForbiddenFlag},
		{[]string{"awk", "BEGIN { extension(\"x.so\", \"f\") }"}, CodeForbiddenFlag},
		{[]string{"awk", "-f", "prog.awk", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "-W", "exec", "prog.awk"}, CodeForbiddenFlag},
		{[]string{"awk", "-Wexec", "prog.awk"}, CodeForbiddenFlag},
		{[]string{"awk", "--exec", "prog.awk"}, CodeUnknownFlag},
		{[]string{"awk", "--version"}, ""},
		{[]string{"awk", "--version", "prog"}, CodeBadUsage},

		// Writing files.
		{[]string{"awk", "{ print > \"out.txt\" }", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "{ print $1 >> \"out.txt\" }", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "{ printf(\"%s\", $0) > \"/tmp/x\" }", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "{ print $1, $2 > $3 }", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "{ print > \"/dev/stderr\" \"x\" }"}, CodeForbiddenFlag}, // "/dev/stderrx"
		{[]string{"awk", "{ print a,\n b > \"f\" }"}, CodeForbiddenFlag},          // the newline continues print
		{[]string{"awk", "{ if (x) print > \"f\" }"}, CodeForbiddenFlag},
		{[]string{"awk", "{ print x ? \"a\" : \"b\" > \"f\" }"}, CodeForbiddenFlag},

		// Reading files the validator did not see.
		{[]string{"awk", "BEGIN { while ((getline l < \"/etc/passwd\") > 0) print l }"}, CodeForbiddenFlag},
		{[]string{"awk", "BEGIN { ARGV[1] = \"/etc/passwd\"; ARGC = 2 } { print }"}, CodeForbiddenFlag},
		{[]string{"awk", "-v", "ARGC=2", "{print}", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "{print}", "ARGC=3", "file.txt"}, CodeForbiddenFlag},
		{[]string{"awk", "{print}", "/etc/passwd"}, codeOutside},
		{[]string{"awk", "{print}", "out/passwd"}, codeOutside},
		{[]string{"awk", "{print}", "file.txt", "../x"}, codeOutside},

		// Regular expressions that hide code from a careless reader. After a
		// condition's ")" a "/" starts a regular expression: the quote
		// inside it is not a string.
		{[]string{"awk", "{ if (1) /\"/; print > \"f\"; x = /\"/ }"}, CodeForbiddenFlag},
		{[]string{"awk", "{ while (0) /\"/; print > \"f\"; y = /\"/ }"}, CodeForbiddenFlag},
		{[]string{"awk", "/[/]/ { print }"}, CodeBadUsage}, // awks disagree about "/" in brackets
		{[]string{"awk", "/[[:alpha:]/]/"}, CodeBadUsage},
		{[]string{"awk", "{ print \"unterminated }"}, CodeBadUsage},
		{[]string{"awk", "/unterminated"}, CodeBadUsage},
		{[]string{"awk", "{ print `x` }"}, CodeBadUsage},

		// Usage.
		{[]string{"awk"}, CodeBadUsage},
		{[]string{"awk", "-F:"}, CodeBadUsage},
		{[]string{"awk", "-v", "x", "{print}"}, CodeBadUsage},
	})
}

// TestAwkAgreesWithAwk runs programs the validator allows through the
// installed awk and checks they did not write or run anything: the scanner
// and awk read them the same way.
func TestAwkAgreesWithAwk(t *testing.T) {
	awk, err := exec.LookPath("awk")
	require.NoError(t, err, "awk (mawk) is in Debian's base")
	awkAgrees(t, awk)
}

// awkAgrees runs the allowed programs of TestAwkAgreesWithAwk through the
// awk at path.
func awkAgrees(t *testing.T, awk string) {
	t.Helper()
	ws := searchWorkspace(t)
	for _, prog := range []string{
		`{ if (1) x = 1; else /"/; y = 2 }`,
		`{ print length() / 2, (length) / 2 }`,
		`{ print $/4/ }`,
		`{ print 1, /4/ / 2 }`,
		`{ x = $1 / 2; print x / 3 }`,
		`/a\/b/ { print }`,
		`{ print ($1 > "zzz") }`,
		`BEGIN { print "to stderr" > "/dev/stderr" }`,
		"{ print $1\n if ($1 > \"m\") n++ } END { print n+0 }",
	} {
		require.NoError(t, awkSpec.Check(&Call{Argv: []string{"awk", prog, "file.txt"}, WS: ws}), "%s", prog)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, awk, prog, "file.txt")
		cmd.Dir = ws.Root()
		out, err := cmd.CombinedOutput()
		cancel()
		require.NoError(t, err, "%s: %s", prog, out)
		entries, err := os.ReadDir(ws.Root())
		require.NoError(t, err)
		for _, e := range entries {
			_, known := map[string]bool{"README.md": true, "file.txt": true, "pats.txt": true, "src": true, ".git": true,
				"ok.sed": true, "evil.sed": true, "wout.sed": true, "cont.sed": true, "nl.sed": true, "out": true, "link.txt": true, "linked.txt": true}[e.Name()]
			assert.True(t, known, "%s created %s", prog, filepath.Join(ws.Root(), e.Name()))
		}
	}
}
