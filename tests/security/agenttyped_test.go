package security

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// agentTyped are commands coding agents type while they work on a Go
// repository, in the forms they type them: reading, searching, editing
// with redirects and here-documents, looking at git, probing the tools.
// None needs a person (git add, git fetch and xargs over unseen input do,
// by design, and are not here): each is expected to be allowed as it is.
var agentTyped = []string{
	"ls", "ls -la", "ls -la src/", "pwd", "cat go.mod", "cat -n main.go", "head -n 40 main.go", "tail -n 20 README.md",
	"sed -n '1,80p' main.go", "sed -n 10,20p src/a.txt", "wc -l main.go src/*.txt",
	"grep -rn TODO --include='*.go' .", "grep -n 'func main' main.go", "rg -n 'func ' --type go", "rg --files",
	"find . -name '*.go' -not -path './vendor/*'", "find . -type f -name '*.txt' | head -20", "tree -L 2",
	"git status", "git status --short", "git diff", "git diff --stat", "git log --oneline -10", "git log -3 --format='%h %s'",
	"git show --stat HEAD", "git branch -a", "git rev-parse --abbrev-ref HEAD", "git checkout -b feature/x",
	"git diff --cached", "git ls-files | head", "git blame -L 1,10 main.go", "git grep -n func",
	"mkdir -p internal/foo", "touch internal/foo/doc.go", "cp main.go main.go.bak", "mv main.go.bak old.go.txt",
	"echo 'package foo' > internal/foo/foo.go", "printf '%s\\n' a b >> notes.txt",
	"cat > internal/foo/bar.go <<'EOF'\npackage foo\n\nfunc Bar() int { return 1 }\nEOF",
	"sed -i 's/Bar/Baz/g' internal/foo/bar.go", "diff -u main.go old.go.txt", "gofmt -l .", "gofmt -d main.go",
	"go version", "go env GOPATH GOMODCACHE", "go list ./...", "go doc fmt.Println", "which go", "command -v git",
	"type gofmt", "uname -a", "nproc", "df -h .", "date -u", "sleep 1", "echo $PWD", "[ -f go.mod ] && echo module",
	"test -d .git && echo repo", "[[ -d internal ]] || mkdir internal", "LC_ALL=C sort notes.txt", "sort notes.txt | uniq -c",
	"for f in *.go; do echo \"== $f\"; head -n 3 \"$f\"; done", "jq . data.json", "cut -d: -f1 notes.txt", "tr a-z A-Z < notes.txt",
	"ls -la | head -20", "du -sh .", "stat main.go", "realpath main.go", "basename $PWD", "file main.go", "sha256sum main.go",
	"cat main.go | grep -c func", "env | sort", "TZ=UTC date", "NO_COLOR=1 git log -1",
	"git log --oneline | head -5", "git stash list", "git remote -v", "git tag",
	"ls internal || true", "true", ": > empty.txt", "exit 0",
	"cd src && for f in *.txt; do echo \"=== $f ===\"; grep -n a \"$f\" | head -20; done",
	"gofmt -l . && for f in *.go; do wc -l \"$f\"; done && echo checked",
	"(cd src && ls -la) && git status --short",
	"if [ -f go.mod ]; then head -n 3 go.mod; else echo 'no go.mod'; fi",
	"echo \"Working in $(pwd)\" && ls",
	"if ! grep -q Bar internal/foo/bar.go; then echo renamed; fi",
	"{ echo '# Notes'; echo; echo '- first'; } > NOTES.md",
	"(go list ./... && gofmt -l .) > check.log 2>&1 || tail -n 20 check.log",
	"test -f go.mod || { echo 'no go.mod'; exit 1; }",
	"if [ -f go.mod ]; then echo go; elif [ -f package.json ]; then echo node; else echo unknown; fi",
	"for f in *.go; do if grep -q 'func main' \"$f\"; then echo \"main in $f\"; fi; done",
	"find . -type f -name '*.go' -exec grep -l 'func main' {} +",
}

// Every command above is allowed: a needless refusal of what agents type
// is a failure. The list is checked in one workspace, in order, as an
// agent's session would be (mkdir before touch).
func TestWhatAgentsTypeIsAllowed(t *testing.T) {
	ws := fixture(t)
	for name, body := range map[string]string{
		"go.mod":    "module example.com/demo\n\ngo 1.22\n",
		"main.go":   "package main\n\nfunc main() {}\n",
		"data.json": "{\"a\": 1}\n",
		"notes.txt": "b\na\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644))
	}
	eng := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, standinPrograms...)})
	t.Cleanup(func() { eng.Close() })
	refused := 0
	for _, cmd := range agentTyped {
		d, err := eng.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err, cmd)
		if !assert.Equal(t, "allow", string(d.Decision), "%q: %s %s: %s", cmd, d.Decision, d.Code, d.Reason) {
			refused++
		}
	}
	t.Logf("%d of %d commands agents type refused", refused, len(agentTyped))
}

// agentTypedRunTime are the forms agents type whose words are known only
// when they run: a substitution, $?, a variable, while read, case. Each
// runs in vtexec's interpreter, every command checked as it is reached,
// none refused or asked about, and prints what bash prints.
var agentTypedRunTime = []string{
	`gofmt -l . >/dev/null 2>&1; echo "exit $?"`,
	`wc -l $(git ls-files '*.go')`,
	`rev=$(git rev-parse HEAD); git show --stat --format=%s $rev`,
	`for f in $(find . -name '*.go' -not -path './vendor/*'); do echo "$f: $(wc -l < "$f")"; done`,
	`git ls-files | while read -r f; do echo "tracked: $f"; done`,
	`grep -c nothing-here main.go || echo "none: $?"`,
	`n=$(grep -c func main.go); echo "$n functions"`,
	`branch=$(git rev-parse --abbrev-ref HEAD) && echo "on $branch"`,
	`test -f go.mod && echo "module: $(head -n 1 go.mod | cut -d' ' -f2)"`,
	`files=$(git ls-files | wc -l); echo "tracked: $files"`,
	`if [ "$(git status --porcelain | wc -l)" -gt 0 ]; then echo dirty; else echo clean; fi`,
	`case "$(uname -s)" in Linux) echo linux;; *) echo other;; esac`,
	`git log --oneline -5 | while read -r sha msg; do echo "commit: $msg"; done`,
	`echo "Go files: $(find . -name '*.go' | wc -l)"`,
	`ls *.go 2>/dev/null | wc -l; echo "status $?"`,
	`count=0; for f in *.go; do count=$((count+1)); done; echo "$count go files"`,
	`mkdir -p build && cd build && echo "in $(basename "$PWD")"`,
	`out=$(git diff --stat); echo "${out:-no changes}"`,
	`gofmt -l . && echo "formatted: $?" || echo "gofmt failed: $?"`,
	`for f in main.go go.mod; do [ -f "$f" ] && echo "have $f"; done; echo "last status $?"`,
}

func TestWhatAgentsTypeAtRunTimeRuns(t *testing.T) {
	ws := fixture(t)
	for name, body := range map[string]string{
		"go.mod":  "module example.com/demo\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644))
	}
	require.NoError(t, os.RemoveAll(filepath.Join(ws, ".git")))
	git := func(args ...string) {
		c := exec.Command("git", append([]string{"-c", "user.name=a", "-c", "user.email=a@b", "-c", "commit.gpgsign=false"}, args...)...)
		c.Dir = ws
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git("init", "-q")
	git("add", "go.mod", "main.go", "README.md")
	git("commit", "-qm", "first")
	eng := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, standinPrograms...)})
	t.Cleanup(func() { eng.Close() })
	for _, cmd := range agentTypedRunTime {
		res, err := eng.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err, cmd)
		if !assert.Equal(t, "allow", string(res.Decision.Decision), "%q: %s: %s", cmd, res.Decision.Code, res.Decision.Reason) {
			continue
		}
		if !assert.Nil(t, res.Stopped, "%q", cmd) {
			continue
		}
		assert.Equal(t, bash(t, ws, cmd+" 2>/dev/null"), res.Stdout, cmd)
	}
}
