package validators

import "testing"

func TestDiff(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("diff file.txt README.md"), ""},
		{splitArgv("diff -u file.txt src/a.txt"), ""},
		{splitArgv("diff -U5 file.txt src/a.txt"), ""},
		{splitArgv("diff -U 0 file.txt src/a.txt"), ""},
		{splitArgv("diff --unified file.txt src/a.txt"), ""},
		{splitArgv("diff --unified=1 -C2 --context -c file.txt src/a.txt"), ""},
		{splitArgv("diff -5 file.txt src/a.txt"), ""},
		{splitArgv("diff -q -s -y -W 80 --left-column file.txt src/a.txt"), ""},
		{splitArgv("diff -iwBbEZ --strip-trailing-cr -a -d -H file.txt src/a.txt"), ""},
		{[]string{"diff", "-I", "^#", "-F", "^func", "-p", "file.txt", "src/a.txt"}, ""},
		{[]string{"diff", "--label", "/etc/passwd", "-L", "b", "file.txt", "src/a.txt"}, ""}, // labels are text
		{[]string{"diff", "-D", "FOO", "--old-line-format=-%L", "--new-group-format=%>", "file.txt", "src/a.txt"}, ""},
		{splitArgv("diff --color=always --palette=ad=1 file.txt src/a.txt"), ""},
		{splitArgv("diff - file.txt"), ""},
		{splitArgv("diff file.txt missing.txt"), ""}, // may be made by an earlier command
		{splitArgv("diff --from-file=file.txt src/a.txt README.md"), ""},
		{splitArgv("diff --to-file file.txt src/a.txt"), ""},
		{splitArgv("diff -N -X pats.txt -x *.o file.txt src/a.txt"), ""},
		{splitArgv("diff --version"), ""},
		{splitArgv("diff --help"), ""},
		// Directories: every link in them must lead inside, unless
		// --no-dereference compares links as links. "out" at the root
		// leads to /etc.
		{splitArgv("diff -r --no-dereference src src"), ""},
		{splitArgv("diff -ru --no-dereference -S b.go -x *.o src ."), ""},
		{splitArgv("diff --no-dereference file.txt src"), ""},
		{splitArgv("diff --no-dereference link.txt file.txt"), ""},
		{splitArgv("diff -r src ."), codeOutside},
		{splitArgv("diff -ru src src"), ""},
		{splitArgv("diff --recursive file.txt src/a.txt"), ""},
		{splitArgv("diff src ."), codeOutside},
		{splitArgv("diff file.txt src"), ""},
		{splitArgv("diff --from-file=src file.txt"), ""},
		{splitArgv("diff --to-file=. file.txt"), codeOutside},
		// Runs pr.
		{splitArgv("diff -l file.txt src/a.txt"), CodeForbiddenFlag},
		{splitArgv("diff --paginate file.txt src/a.txt"), CodeForbiddenFlag},
		{splitArgv("diff -ul file.txt src/a.txt"), CodeForbiddenFlag},
		// Paths.
		{splitArgv("diff file.txt /etc/passwd"), codeOutside},
		{splitArgv("diff out/passwd file.txt"), codeOutside},
		{splitArgv("diff -r --no-dereference src ../x"), codeOutside},
		{splitArgv("diff --from-file=/etc/passwd file.txt"), codeOutside},
		{splitArgv("diff --to-file=out file.txt"), codeOutside},
		{splitArgv("diff -X /etc/passwd file.txt src/a.txt"), codeOutside},
		{splitArgv("diff --exclude-from=../x -r --no-dereference src src"), codeOutside},
		// Flags.
		{splitArgv("diff --unif file.txt src/a.txt"), CodeUnknownFlag},
		{splitArgv("diff -K file.txt src/a.txt"), CodeUnknownFlag},
		{splitArgv("diff --sdiff-merge-assist file.txt src/a.txt"), CodeUnknownFlag},
		{splitArgv("diff -W wide file.txt src/a.txt"), CodeBadUsage},
		{splitArgv("diff -C"), CodeBadUsage},
		{splitArgv("diff --brief=1 a b"), CodeBadUsage},
	})
}
