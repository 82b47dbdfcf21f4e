package security

import "testing"

// Text tools: diff, cmp, comm, basename, dirname, realpath, readlink, date,
// printf, true, false, seq, jq and awk. They write nothing but their output;
// what they read is confined, and the forms that run a program (diff -l),
// set the clock (date -s) or load files the command line does not name (jq
// import, jq -f, awk's system, pipes, getline, print > and ARGV) are
// refused.
var texttoolsCases = []tableCase{
	// Everyday use stays allowed.
	{"diff file.txt src/a.txt", allow},
	{"diff -u README.md docs/guide.md", allow},
	{"diff -ru --no-dereference src docs", allow},
	{"sort file.txt > sorted.txt && diff sorted.txt file.txt", allow},
	{"cmp file.txt src/a.txt", allow},
	{"cmp -s file.txt src/a.txt 1 1", allow},
	{"comm -12 file.txt src/a.txt", allow},
	{"basename src/a.txt .txt", allow},
	{"basename /etc/passwd", allow},
	{"dirname src/a.txt ../../x", allow},
	{"realpath src/a.txt", allow},
	{"realpath --relative-to=docs src/a.txt", allow},
	{"readlink -f inner/a.txt", allow},
	{"readlink inner", allow},
	{"date", allow},
	{"date -u +%Y-%m-%dT%H:%M:%SZ", allow},
	{"date -d yesterday +%F", allow},
	{`date -d 'TZ="Asia/Tokyo" 2024-01-01 09:00'`, allow},
	{"date -r file.txt +%s", allow},
	{`printf '%s\n' hello /etc/passwd`, allow},
	{"printf -v x %s", allow},
	{"true", allow},
	{"false --whatever", allow},
	{"seq 5", allow},
	{"seq -5 5", allow},
	{"seq -s, -w 1 10", allow},
	{"jq . file.txt", allow},
	{"cat file.txt | jq -r '.[] | .name'", allow},
	{"jq -n --arg x /etc/passwd '$x'", allow},
	{"jq -n '$ARGS' --args a /etc/passwd", allow},
	{"jq --slurpfile d file.txt -n '$d'", allow},
	{"jq --rawfile t src/a.txt -n '$t'", allow},
	{`jq '.import, {include: 1}, "import"' file.txt`, allow},

	// diff: files outside, trees that follow links, and pr.
	{"diff file.txt /etc/passwd", deny("outside_workspace")},
	{"diff file.txt escape/passwd", deny("outside_workspace")},
	{"diff --from-file=/etc/passwd file.txt", deny("outside_workspace")},
	{"diff --to-file=sibling file.txt", deny("outside_workspace")},
	{"diff -X ~/.ssh/id_rsa file.txt src/a.txt", deny("outside_workspace")},
	{"diff -r src docs", allow},
	{"diff src inner", allow},
	{"diff -r src .", deny("outside_workspace")},
	{"diff . docs", deny("outside_workspace")},
	{"diff --no-dereference -r src .", allow},
	{"diff -l file.txt src/a.txt", deny("forbidden_flag")},
	{"diff --unif file.txt src/a.txt", deny("unknown_flag")},

	// cmp and comm.
	{"cmp file.txt /etc/shadow", deny("outside_workspace")},
	{"cmp ../ws2/secret.txt file.txt", deny("outside_workspace")},
	{"comm file.txt sibling/secret.txt", deny("outside_workspace")},

	// realpath and readlink do not map what lies outside.
	{"realpath /etc", deny("outside_workspace")},
	{"realpath escape", deny("outside_workspace")},
	{"realpath -m up/ws2/secret.txt", deny("outside_workspace")},
	{"realpath --relative-to=/ file.txt", deny("outside_workspace")},
	{"realpath --relative-base=.. file.txt", deny("outside_workspace")},
	{"realpath -s inner/../../ws2", deny("outside_workspace")},
	{"readlink escape", deny("outside_workspace")},
	{"readlink -f sibling", deny("outside_workspace")},
	{"readlink ~/.ssh", deny("outside_workspace")},

	// date: the clock and files outside.
	{"date -s '2000-01-01'", deny("forbidden_flag")},
	{"date --set=tomorrow", deny("forbidden_flag")},
	{"date 010100002000", deny("forbidden_flag")},
	{"date -r /etc/shadow", deny("outside_workspace")},
	{"date -f ../ws2/secret.txt", deny("outside_workspace")},
	{`date -d 'TZ="/etc/shadow" now'`, deny("forbidden_flag")},
	{`date -d 'TZ="../../../../etc/passwd" now'`, deny("forbidden_flag")},

	// seq's flags are a table too.
	{"seq -x 3", deny("unknown_flag")},

	// jq: files, modules and program files.
	{"jq . /etc/passwd", deny("outside_workspace")},
	{"jq . file.txt escape/passwd", deny("outside_workspace")},
	{"jq --slurpfile d ~/.docker/config.json -n '$d'", deny("outside_workspace")},
	{"jq --rawfile t ../ws2/secret.txt -n '$t'", deny("outside_workspace")},
	{"jq -L /usr/share/jq -n 1", deny("outside_workspace")},
	{`jq -n 'import ".docker/config" as $c {search: "/root"}; $c'`, deny("forbidden_flag")},
	{`jq -n 'include "m" {search: "/tmp"}; f'`, deny("forbidden_flag")},
	{`jq -n '"m" | modulemeta'`, deny("forbidden_flag")},
	{"jq -f scripts/ok.sed file.txt", deny("forbidden_flag")},
	{"jq --run-tests", deny("forbidden_flag")},
	{"jq --indent=2 . file.txt", deny("unknown_flag")},

	// awk reads and prints; its program may not run, write or read more.
	{`awk '{print $1}' file.txt`, allow},
	{`awk -F: -v OFS=, '$3 > 100 {print $1, $NF}' file.txt src/a.txt`, allow},
	{`cat file.txt | awk '/TODO|FIXME/ {n++} END {print n+0}'`, allow},
	{`awk 'BEGIN { print "usage" > "/dev/stderr" }'`, allow},
	{`awk 'BEGIN { system("id") }'`, deny("forbidden_flag")},
	{`awk '{ print | "sh" }' file.txt`, deny("forbidden_flag")},
	{`awk 'BEGIN { "cat /etc/passwd" | getline x; print x }'`, deny("forbidden_flag")},
	{`awk 'BEGIN { while ((getline l < "/etc/shadow") > 0) print l }'`, deny("forbidden_flag")},
	{`awk 'BEGIN { ARGV[1] = "/etc/passwd"; ARGC = 2 } { print }' file.txt`, deny("forbidden_flag")},
	{`awk '{ print > ".git/hooks/pre-commit" }' file.txt`, deny("forbidden_flag")},
	{`awk '{ printf("%s", $0) >> "out.txt" }' file.txt`, deny("forbidden_flag")},
	{`awk 'BEGIN { f = "system"; @f("id") }'`, deny("forbidden_flag")},
	{`awk '@load "readfile"'`, deny("forbidden_flag")},
	{`awk -f prog.awk file.txt`, deny("forbidden_flag")},
	{`awk -W exec prog.awk`, deny("forbidden_flag")},
	{`awk '{ if (1) /"/; print > "f"; x = /"/ }' file.txt`, deny("forbidden_flag")},
	{`awk '{ print length /"/; print > "f"; x = "/ }' file.txt`, deny("bad_usage")},
	{`awk '{print}' /etc/passwd`, deny("outside_workspace")},
	{`awk '{print}' escape/passwd`, deny("outside_workspace")},
	{`awk '{print}' ARGC=3 file.txt`, deny("forbidden_flag")},
	// Words that are keywords in one awk and variables in another: after
	// them, whether "/" divides depends on which awk runs.
	{`awk 'BEGIN { c = "id"; func = 1; y = func / 1; print "" | c; z = 1 / 1 }'`, deny("bad_usage")},
	{`awk 'BEGIN { f = "out"; func = 1; y = func / 1; print "x" > f; z = 1 / 1 }'`, deny("bad_usage")},
	{"awk 'BEGIN { x = \"a#\"; switch (x) { case /#/: print \"x\" > \"f\"\n} }'", deny("bad_usage")},
	{"awk 'BEGIN { default = 2; print default / 2 }'", deny("bad_usage")},
	// gawk continues a statement after a newline that follows ? or :.
	{"awk 'BEGIN { print 1 ?\n\"a\" : \"b\" > \"/tmp/q\" }'", deny("forbidden_flag")},
	{"awk 'BEGIN { print 1 ? \"a\" :\n\"b\" > \"/tmp/q\" }'", deny("forbidden_flag")},
	// gawk's SYMTAB reaches any variable by a computed name, ARGV too.
	{`awk 'BEGIN { SYMTAB["AR" "GV"][1] = "/etc/shadow"; SYMTAB["AR" "GC"] = 2 } { print }' file.txt`, deny("forbidden_flag")},
}

func TestTextTools(t *testing.T) { checkTable(t, texttoolsCases) }
