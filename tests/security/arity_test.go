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
	"github.com/vtexec/vtexec/validators"
)

// Flags whose arity the specs had wrong, found by the flag-arity probe
// (tests/arity): a short flag the program reads as a plain switch was
// taken to carry an attached value, so the letters after it, which the
// program reads as more flags, went unchecked; and a long flag whose value
// the program takes only attached was taken to consume the next word.
var arityCases = []tableCase{
	// coreutils 9.1 ls -F takes no value: -FL is -F -L (follow links).
	{"ls -FL src", deny("forbidden_flag")},
	{"ls -F src", allow},
	{"ls --classify=never src", allow},
	// cp -u takes no value: -ul is -u -l (a hard link).
	{"cp -ul file.txt hardlink", deny("forbidden_flag")},
	// tail -f takes no value: -fX is -f -X.
	{"tail -fX file.txt", deny("unknown_flag")},
	// xargs --max-lines takes its value only attached: in
	// "xargs --max-lines 5 echo" the command is 5.
	{"xargs --max-lines 5 echo", deny("not_allowed")},
	// git --list-cmds takes its value only attached: push is the subcommand.
	{"git --list-cmds push", want{"ask", "git_network"}},
}

func TestArity(t *testing.T) { checkTable(t, arityCases) }

// Class 1, canonical form: a long option that took the next word as its
// value reaches the program as one word, --name=value. Where a spec is
// wrong about the option taking a value, the program now refuses the
// =value instead of reading the next word as a file. Shown on a spec
// made wrong on purpose (cat's --show-all takes no value).
func TestCanonicalLongOptionFailsSafeOnAWrongSpec(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET-4b1\n"), 0o644))
	wrong := &validators.Spec{Name: "cat", Operands: validators.ReadPaths, Flags: []validators.Flag{{Long: "show-all", Arg: validators.Text}}}
	typed := []string{"cat", "--show-all", secret}
	a, err := wrong.Parse(typed[1:])
	require.NoError(t, err)
	assert.Empty(t, a.Operands, "the wrong spec reads the path as the option's value, so it checks no path")

	out, _ := exec.Command("/bin/cat", typed[1:]...).CombinedOutput()
	assert.Contains(t, string(out), "SECRET-4b1", "as typed, cat reads the file the spec never checked (the probe works)")

	canonical := wrong.Canonical(typed)
	assert.Equal(t, []string{"cat", "--show-all=" + secret}, canonical)
	out, err = exec.Command("/bin/cat", canonical[1:]...).CombinedOutput()
	assert.Error(t, err)
	assert.NotContains(t, string(out), "SECRET-4b1", "in canonical form cat refuses the value and reads nothing")
}

// The canonical form is what runs, and what a person would see.
func TestCanonicalFormIsWhatRuns(t *testing.T) {
	ws := fixture(t)
	d, err := standinEngine(t).Check(context.Background(), vtexec.Request{Command: "sort --key 2 file.txt", Workspace: ws})
	require.NoError(t, err)
	require.Len(t, d.Commands, 1)
	assert.Equal(t, []string{"sort", "--key=2", "file.txt"}, d.Commands[0].Argv)
	res := runIn(t, ws, "sort --key 1 file.txt")
	assert.Equal(t, 0, res.ExitCode, res.Stderr)

	// git's first pass reads a next word that is one of log's own
	// options (--decorate, --source, -L) as that option; attached, the
	// word is the value the spec saw.
	for cmd, want := range map[string][]string{
		"git log --author --decorate":     {"git", "log", "--author=--decorate"},
		"git log -n 3 --grep --source":    {"git", "log", "-n3", "--grep=--source"},
		"git -C . log --since yesterday":  {"git", "-C", ".", "log", "--since=yesterday"},
		"git log --format=%h -- --author": {"git", "log", "--format=%h", "--", "--author"},
		// Under a wrapper, the command it runs too.
		"timeout 5 sort --key 2 file.txt":     {"timeout", "5", "sort", "--key=2", "file.txt"},
		"timeout --signal KILL 5 ls":          {"timeout", "--signal=KILL", "5", "ls"},
		"nice -n 5 git log --author --source": {"nice", "-n", "5", "git", "log", "--author=--source"},
	} {
		d, err := standinEngine(t).Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
		require.NoError(t, err)
		require.Len(t, d.Commands, 1, cmd)
		assert.Equal(t, want, d.Commands[0].Argv, cmd)
	}
}
