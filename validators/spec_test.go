package validators

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// testWS builds a workspace with a few files, a .git directory and a
// symlink "out" to /etc.
func testWS(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", "src/c.go", ".git/config", "dir/x"} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
	}
	require.NoError(t, os.Symlink("/etc", filepath.Join(dir, "out")))
	ws, err := workspace.New(dir)
	require.NoError(t, err)
	return ws
}

// checkCode runs the registered validator for argv[0] and returns "" when
// allowed or the finding's code.
func checkCode(t *testing.T, ws *workspace.Workspace, argv ...string) string {
	t.Helper()
	v, ok := Lookup(argv[0])
	require.True(t, ok, "no validator for %s", argv[0])
	err := v.Check(&Call{Argv: argv, WS: ws})
	if err == nil {
		return ""
	}
	var f *Finding
	require.True(t, errors.As(err, &f), "error is not a *Finding: %v", err)
	assert.NotEmpty(t, f.Reason)
	assert.NotEmpty(t, f.Hint)
	return f.Code
}

type vcase struct {
	argv []string
	code string // "" = allowed
}

func runCases(t *testing.T, cases []vcase) {
	t.Helper()
	ws := testWS(t)
	for _, c := range cases {
		assert.Equal(t, c.code, checkCode(t, ws, c.argv...), "%q", c.argv)
	}
}

func args(s ...string) []string { return s }

func TestSpecParse(t *testing.T) {
	s := &Spec{Name: "demo", NumberShort: true, Flags: []Flag{
		{Short: "a"}, {Short: "b", Long: "bee"}, {Short: "n", Long: "lines", Arg: Number},
		{Long: "color", Arg: Text, Optional: true}, {Long: "exec", Arg: Text, Forbid: "runs code"},
		{Short: "x", Arg: Text, Forbid: "runs code"},
	}}
	s.index()
	a, err := s.Parse(args("-ab", "-n5", "op1", "--lines", "7", "--color", "op2", "--color=auto", "--", "-a", "--exec"))
	require.NoError(t, err)
	assert.Equal(t, []string{"op1", "op2", "-a", "--exec"}, a.Operands)
	assert.Equal(t, []string{"5", "7"}, a.Values("n"))
	assert.Equal(t, []string{"", "auto"}, a.Values("color"))
	assert.True(t, a.Has("bee"))

	a, err = s.Parse(args("-20", "-", "x"))
	require.NoError(t, err)
	assert.Equal(t, []string{"-", "x"}, a.Operands)
	assert.Equal(t, "20", a.Flags[0].Value)

	refused := map[string][]string{
		CodeUnknownFlag:   {"-q", "--bees", "--be", "--lin=3", "-aq"},
		CodeForbiddenFlag: {"--exec=x", "-ax", "-xfoo"},
		CodeBadUsage:      {"--bee=1", "-n", "--lines"},
	}
	for code, list := range refused {
		for _, arg := range list {
			_, err := s.Parse(args(arg))
			var f *Finding
			require.True(t, errors.As(err, &f), "%s should be refused", arg)
			assert.Equal(t, code, f.Code, arg)
		}
	}
}

func TestSpecNoPermute(t *testing.T) {
	s := &Spec{Name: "demo", NoPermute: true, Flags: []Flag{{Short: "a"}}}
	s.index()
	a, err := s.Parse(args("-a", "op", "-z"))
	require.NoError(t, err)
	assert.Equal(t, []string{"op", "-z"}, a.Operands)
}

func TestSimplePrograms(t *testing.T) {
	runCases(t, []vcase{
		{args("cat", "a.txt", "-n", "src/c.go"), ""},
		{args("cat", "-"), ""},
		{args("cat", "../x"), "outside_workspace"},
		{args("cat", "out/passwd"), "outside_workspace"},
		{args("cat", "--", "-n"), ""},
		{args("cat", "-Z"), CodeUnknownFlag},
		{args("head", "-n", "3", "a.txt"), ""},
		{args("head", "-3", "a.txt"), ""},
		{args("head", "-c", "1K", "a.txt"), ""},
		{args("head", "-n", "x", "a.txt"), CodeBadUsage},
		{args("head", "--li=3", "a.txt"), CodeUnknownFlag},
		{args("tail", "-n", "+2", "a.txt"), ""},
		{args("tail", "-f", "a.txt"), ""},
		{args("tail", "--follow=name", "a.txt"), ""},
		{args("tail", "/etc/passwd"), "outside_workspace"},
		{args("wc", "-l", "a.txt", "b.txt"), ""},
		{args("wc", "--files0-from=a.txt"), CodeForbiddenFlag},
		{args("ls", "-la", "src", "dir"), ""},
		{args("ls", "--color=auto", "-h"), ""},
		{args("ls", "--color", "auto"), ""}, // --color takes no detached value: "auto" is a path
		{args("ls", "-L", "out"), CodeForbiddenFlag},
		{args("ls", "/"), "outside_workspace"},
		{args("ls", "-R", "--sort=size"), ""},
		{args("pwd"), ""},
		{args("pwd", "x"), CodeBadUsage},
		{args("which", "-a", "ls", "cat"), ""},
		{args("printenv", "HOME", "PATH"), ""},
		{args("echo", "-e", "--anything", "/etc/passwd"), ""},
		{args("tac", "-s", ",", "a.txt"), ""},
		{args("tac", "../x"), "outside_workspace"},
		{args("numfmt", "--to=iec", "1048576", "/etc/passwd"), ""},
		{args("numfmt", "--header=1", "--field", "2"), ""},
		{args("sha256sum", "a.txt", "src/c.go"), ""},
		{args("sha256sum", "--tag", "out/passwd"), "outside_workspace"},
		{args("md5sum", "-c", "a.txt"), CodeForbiddenFlag},
		{args("sha1sum", "--check", "a.txt"), CodeForbiddenFlag},
	})
}

func TestCp(t *testing.T) {
	runCases(t, []vcase{
		{args("cp", "a.txt", "c.txt"), ""},
		{args("cp", "a.txt", "b.txt", "dir"), ""},
		{args("cp", "-r", "src", "copy"), ""},
		{args("cp", "-t", "dir", "a.txt"), ""},
		{args("cp", "a.txt"), CodeBadUsage},
		{args("cp", "a.txt", "/tmp/x"), "outside_workspace"},
		{args("cp", "out/passwd", "x"), "outside_workspace"},
		{args("cp", "a.txt", ".git/hooks/pre-commit"), "protected_path"},
		{args("cp", "a.txt", ".git"), "protected_path"},
		{args("cp", "-r", "src", ".git/x"), "protected_path"},
		{args("cp", "-t", ".git", "a.txt"), "protected_path"},
		{args("cp", "--parents", "a.txt", ".git"), "protected_path"},
		{args("cp", "-l", "a.txt", "x"), CodeForbiddenFlag},
		{args("cp", "--symbolic-link", "a.txt", "x"), CodeForbiddenFlag},
		{args("cp", "-rL", "src", "x"), CodeForbiddenFlag},
		{args("cp", "-b", "-S", "/../x", "a.txt", "b.txt"), CodeForbiddenFlag},
		{args("cp", "--backup", "--suffix=.bak", "a.txt", "b.txt"), ""},
		{args("cp", "-b", "-S", "it", "a.txt", ".g"), "protected_path"}, // the backup of .g would be .git
	})
	// A source named .git copied into a directory lands on a protected path.
	ws := testWS(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws.Root(), "sub", ".git"), 0o755))
	assert.Equal(t, "protected_path", checkCode(t, ws, "cp", "-r", "sub/.git", "."))
}

// Harmless programs that used to ask: uname, nproc, df, sleep (bounded by
// the run's timeout).
func TestSystemFactsPrograms(t *testing.T) {
	ws := rmWS(t)
	for _, tc := range []struct {
		argv []string
		code string
	}{
		{[]string{"uname", "-a"}, ""},
		{[]string{"uname", "-srm"}, ""},
		{[]string{"uname", "x"}, CodeBadUsage},
		{[]string{"nproc"}, ""},
		{[]string{"nproc", "--ignore=1"}, ""},
		{[]string{"nproc", "--ignore=x"}, CodeBadUsage},
		{[]string{"sleep", "1"}, ""},
		{[]string{"sleep", "0.5", "2s"}, ""},
		{[]string{"sleep", "1x"}, CodeBadUsage},
		{[]string{"sleep", "/etc/passwd"}, CodeBadUsage},
		{[]string{"sleep"}, CodeBadUsage},
		{[]string{"df", "-hT"}, CodeBadUsage},
		{[]string{"df", "-hT", "."}, ""},
		{[]string{"df", "--version"}, ""},
		{[]string{"df", "--output=source,avail", "-BM", "."}, ""},
		{[]string{"df", "-h", "a.txt"}, ""},
		{[]string{"df", "/"}, "outside_workspace"},
		{[]string{"df", "-h", "../x"}, "outside_workspace"},
		{[]string{"df", "-B"}, CodeBadUsage},
		{[]string{"df", "--human"}, CodeUnknownFlag},
	} {
		v, ok := Lookup(tc.argv[0])
		require.True(t, ok, tc.argv[0])
		err := v.Check(&Call{Argv: tc.argv, WS: ws})
		if tc.code == "" {
			assert.NoError(t, err, "%q", tc.argv)
			continue
		}
		var f *Finding
		require.True(t, errors.As(err, &f), "%q: %v", tc.argv, err)
		assert.Equal(t, tc.code, f.Code, "%q", tc.argv)
	}
}

// gofmt reads; -w, the one flag that writes, is refused in every Go flag
// spelling. Go's flag package reads one flag per word and stops at the
// first operand, so a later "-w" is a file name to gofmt.
func TestGofmt(t *testing.T) {
	ws := rmWS(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws.Root(), "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws.Root(), "src", "ok.go"), []byte("package src\n"), 0o644))
	for _, tc := range []struct {
		argv []string
		code string
	}{
		{[]string{"gofmt", "-l", "."}, ""},
		{[]string{"gofmt", "-s", "-d", "a.txt"}, ""},
		{[]string{"gofmt", "-r", "a -> b", "-d", "a.txt"}, ""},
		{[]string{"gofmt"}, ""},
		// -w writes: a.txt is part of the git directory (.git/lnk leads
		// there), src/ok.go an ordinary file.
		{[]string{"gofmt", "-w", "a.txt"}, "protected_path"},
		{[]string{"gofmt", "--w", "a.txt"}, "protected_path"},
		{[]string{"gofmt", "-w=false", "a.txt"}, "protected_path"},
		{[]string{"gofmt", "-w", "src/ok.go"}, ""},
		{[]string{"gofmt", "-l", "-w", "src"}, ""},
		{[]string{"gofmt", "-w", "/etc"}, "outside_workspace"},
		{[]string{"gofmt", "--l", "--d=true", "-r=a -> b", "--r", "b -> a", "a.txt"}, ""},
		{[]string{"gofmt", "-l=maybe", "a.txt"}, CodeBadUsage},
		{[]string{"gofmt", "-ld", "a.txt"}, CodeUnknownFlag},
		{[]string{"gofmt", "-lw", "a.txt"}, CodeUnknownFlag},
		{[]string{"gofmt", "---l", "a.txt"}, CodeBadUsage},
		{[]string{"gofmt", "-=l", "a.txt"}, CodeBadUsage},
		{[]string{"gofmt", "-r"}, CodeBadUsage},
		{[]string{"gofmt", "-r", "-w", "a.txt"}, ""}, // -w is the rule
		{[]string{"gofmt", "-", "-w"}, ""},           // "-" is an operand
		{[]string{"gofmt", "--", "-w"}, ""},
		{[]string{"gofmt", "-l", "--", "/etc"}, "outside_workspace"},
		{[]string{"gofmt", "-cpuprofile", "p", "a.txt"}, CodeUnknownFlag},
		{[]string{"gofmt", "-l", "/etc"}, "outside_workspace"},
		{[]string{"gofmt", "-l", "../x"}, "outside_workspace"},
		{[]string{"gofmt", "a.txt", "-w"}, ""}, // a file named -w, read
	} {
		v, ok := Lookup(tc.argv[0])
		require.True(t, ok, tc.argv[0])
		err := v.Check(&Call{Argv: tc.argv, WS: ws})
		if tc.code == "" {
			assert.NoError(t, err, "%q", tc.argv)
			continue
		}
		var f *Finding
		require.True(t, errors.As(err, &f), "%q: %v", tc.argv, err)
		assert.Equal(t, tc.code, f.Code, "%q", tc.argv)
	}
}
