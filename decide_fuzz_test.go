package vtexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vtexec/vtexec/codes"
)

// FuzzDecide: whatever command a request holds, the engine decides it —
// the static check, the policy, and for a run-time request the
// interpreter's shapes and their checks — without a fault of its own
// (check_failed is one, recovered), and every refusal or ask says why.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{
		"ls -la", "cat a.txt | wc -l", "for f in *.txt; do wc -l $f; done", "x=$(ls); cat $x",
		"f=$(ls | grep a); cat $f | wc -l", "while read l; do echo $l; done < a.txt",
		"case $x in a*) ls;; *) cat a.txt;; esac", "set -e; cd sub; ls", "echo ${x:-y} ${#x} ${x%.txt}",
		"mapfile -t a < a.txt; cat ${a[0]}", "while getopts ab: o; do echo $OPTARG; done",
		"[[ $x == a* ]] && ls", "p=$(cat a.txt); ls $p*", "n=$((1+2)); head -n $n a.txt",
		"echo $(date) > sub/out", "if test -f a.txt; then cat a.txt; fi", "cd sub && ls $PWD",
		"read -r x < a.txt; echo \"$x\"", "for i in 1 2; do for j in a b; do echo $i$j; done; done",
		"ls [a-c]*.txt", "ls ?[N-\\*]", "cat <(ls)", "x=1; until [ $x -gt 2 ]; do x=$((x+1)); done",
	} {
		f.Add(s)
	}
	dir := testDir(f)
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	e := NewEngine(Config{})
	f.Cleanup(func() { e.Close() })
	f.Fuzz(func(t *testing.T, src string) {
		d, err := e.Check(context.Background(), Request{Command: src, Workspace: dir, AuditLog: "off"})
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("%q: an error that is not a RequestError: %v", src, err)
			}
			if re.Code == codes.CheckFailed || re.Code == "" || re.Hint == "" {
				t.Fatalf("%q: %+v", src, re)
			}
			return
		}
		switch d.Decision {
		case VerdictAllow:
		case VerdictAsk, VerdictDeny:
			if d.Code == "" || d.Reason == "" {
				t.Fatalf("%q: %s without code or reason: %+v", src, d.Decision, d)
			}
		default:
			t.Fatalf("%q: decision %q", src, d.Decision)
		}
		if d.Code == codes.CheckFailed {
			t.Fatalf("%q: a fault of vtexec's own: %s", src, d.Reason)
		}
	})
}
