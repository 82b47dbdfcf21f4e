package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// policy allow records the rule a person's "always" answer would: a
// program with subcommands gets its subcommand words, any other program
// (rm above all) its exact arguments; --any-arguments is refused, with
// the reason, where it would approve unbounded damage; the .vtexec
// directory keeps local approvals out of git.
func TestPolicyAllowRecordsWhatAPersonExpects(t *testing.T) {
	ws := cliWorkspace(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "build"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "build", "out.o"), []byte("x"), 0o644))
	allow := func(args ...string) (int, string) {
		code, out, errOut := cli(t, "", append([]string{"policy", "allow", "--workspace", ws}, args...)...)
		return code, out + errOut
	}
	check := func(cmd string) int {
		code, _, _ := cli(t, "", "check", "--workspace", ws, "--", cmd)
		return code
	}

	code, out := allow("--", "rm", "build/out.o")
	require.Equal(t, 0, code, out)
	assert.Equal(t, exitAllow, check("rm build/out.o"))
	assert.Equal(t, exitAsk, check("rm build/out.o README.md"), "exactly the arguments allowed, nothing more")
	assert.Equal(t, exitAsk, check("rm -r build"))

	code, out = allow("--any-arguments", "--", "rm")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, "cannot be allowed with any arguments")
	code, out = allow("--any-arguments", "--", "git")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, "name the subcommand")

	code, out = allow("--", "make", "test")
	require.Equal(t, 0, code, out)
	assert.Equal(t, exitAllow, check("make test"))
	assert.Equal(t, exitAllow, check("make test -j4"), "a subcommand rule allows later arguments")
	assert.Equal(t, exitAsk, check("make install"))

	code, out = allow("--", "tar", "-tf", "a.tar")
	require.Equal(t, 0, code, out) // flags in a rule
	assert.Equal(t, exitAllow, check("tar -tf a.tar"))
	assert.Equal(t, exitAsk, check("tar -tf b.tar"))

	// Recorded in the form vtexec runs it: --key=2.
	code, out = allow("--", "sort", "--key", "2", "README.md")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "--key=2")

	code, out = allow("--any-arguments", "--", "make", "test")
	assert.NotEqual(t, 0, code, out)

	data, err := os.ReadFile(filepath.Join(ws, ".vtexec", ".gitignore"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "policy.local.toml\n")
	assert.Contains(t, string(data), "*.lock\n")
}

// A person's own .vtexec/.gitignore is left as it is.
func TestPolicyAllowKeepsAPersonsGitignore(t *testing.T) {
	ws := cliWorkspace(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".vtexec", ".gitignore"), []byte("mine\n"), 0o644))
	code, _, errOut := cli(t, "", "policy", "allow", "--workspace", ws, "--", "make", "test")
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(filepath.Join(ws, ".vtexec", ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, "mine\n", string(data))
}

// policy root add writes a [[root]]: a read-only root may be read and
// not written, with a hint that says why; the same path twice is
// refused, and so are "/" and a directory holding vtexec's own files.
func TestPolicyRootAdd(t *testing.T) {
	ws := cliWorkspace(t)
	extra, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(extra, "data.txt"), []byte("extra\n"), 0o644))
	code, out, errOut := cli(t, "", "policy", "root", "add", "--workspace", ws, "--read-only", extra)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "(read-only)")

	code, out, _ = cli(t, "", "check", "--workspace", ws, "--", "cat "+filepath.Join(extra, "data.txt"))
	assert.Equal(t, exitAllow, code, out)
	code, out, _ = cli(t, "", "check", "--workspace", ws, "--", "echo x > "+filepath.Join(extra, "new.txt"))
	assert.Equal(t, exitDeny, code)
	assert.Contains(t, out, "read-only root of the workspace")

	code, _, errOut = cli(t, "", "policy", "root", "add", "--workspace", ws, extra)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "there already, read-only")
	code, _, _ = cli(t, "", "policy", "root", "add", "--workspace", ws, "/")
	assert.NotEqual(t, 0, code)
	code, _, errOut = cli(t, "", "policy", "root", "add", "--workspace", ws, os.Getenv("XDG_CONFIG_HOME"))
	assert.NotEqual(t, 0, code, "the user's vtexec configuration lives there")
	assert.Contains(t, errOut, "vtexec's own files")
}

// What a killed policy allow left in .vtexec (a temporary copy of the
// approvals) is removed by the next write, and kept out of git meanwhile;
// the .gitignore an earlier vtexec wrote is brought up to date.
func TestPolicyAllowCleansUpAfterAKilledWrite(t *testing.T) {
	ws := cliWorkspace(t)
	dir := filepath.Join(ws, ".vtexec")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"),
		[]byte("# written by vtexec: local approvals and lock files stay out of git\npolicy.local.toml\n*.lock\n"), 0o644))
	stale := filepath.Join(dir, ".policy.local.toml.tmp-0")
	require.NoError(t, os.WriteFile(stale, []byte("[[rule]]\n"), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	fresh := filepath.Join(dir, ".policy.local.toml.tmp-67890") // another writer's, right now
	require.NoError(t, os.WriteFile(fresh, nil, 0o600))

	code, _, errOut := cli(t, "", "policy", "allow", "--workspace", ws, "--", "make", "test")
	require.Equal(t, 0, code, errOut)
	assert.NoFileExists(t, stale)
	assert.FileExists(t, fresh, "a temporary file younger than a minute may be another write's")
	ignore, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Contains(t, string(ignore), ".*.tmp-*")
}

// The .gitignore of .vtexec is one text whichever writes it first — an
// approval answered "always" or policy allow — and the one the engine
// wrote before (without the temporary files) is brought up to date.
func TestOneGitignoreForVtexecsDirectory(t *testing.T) {
	ws := cliWorkspace(t)
	dir := filepath.Join(ws, ".vtexec")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("policy.local.toml\n*.lock\n"), 0o644))
	code, _, errOut := cli(t, "", "policy", "allow", "--workspace", ws, "--", "make", "test")
	require.Equal(t, 0, code, errOut)
	ignore, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Contains(t, string(ignore), ".*.tmp-*")

	// A person's own file stays as it is.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("mine\n"), 0o644))
	code, _, errOut = cli(t, "", "policy", "allow", "--workspace", ws, "--", "make", "lint")
	require.Equal(t, 0, code, errOut)
	ignore, err = os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, "mine\n", string(ignore))
}
