package security

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compoundGen writes random commands of the compound forms vtexec runs
// itself (lists, !, { } and ( ) groups, if/elif/else, for loops), out
// of commands whose output and status tell which of them ran.
type compoundGen struct {
	r      *rand.Rand
	n      int  // echo counter: each echo prints a word of its own
	inLoop bool // loops do not nest
}

func (g *compoundGen) simple() string {
	g.n++
	switch g.r.IntN(6) {
	case 0:
		return "true"
	case 1:
		return "false"
	case 2:
		return "test -f README.md"
	case 3:
		return "! test -f missing.txt"
	default:
		return fmt.Sprintf("echo w%d", g.n)
	}
}

// redirect is, now and then, a group's own output redirect: the file is
// read back at the end of the command.
func (g *compoundGen) redirect() string {
	switch g.r.IntN(6) {
	case 0:
		return " >> g.txt"
	case 1:
		return " > g.txt 2>&1"
	case 2:
		return " 2>> g.txt"
	}
	return ""
}

func (g *compoundGen) list(depth int) string {
	return randomList(g.r, func() string { return g.stmt(depth) })
}

// randomList joins one to three statements with ;, && or ||.
func randomList(r *rand.Rand, stmt func() string) string {
	parts := []string{stmt()}
	for range r.IntN(3) {
		parts = append(parts, []string{";", "&&", "||"}[r.IntN(3)], stmt())
	}
	return strings.Join(parts, " ")
}

// bashOutcome runs cmd with bash in dir: its stdout and exit status.
func bashOutcome(t *testing.T, dir, cmd string) (string, int) {
	t.Helper()
	c := exec.Command("bash", "--norc", "--noprofile", "-c", cmd)
	c.Dir = dir
	out, err := c.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

func (g *compoundGen) stmt(depth int) string {
	if depth <= 0 {
		return g.simple()
	}
	switch g.r.IntN(6) {
	case 0:
		return "{ " + g.list(depth-1) + "; }" + g.redirect()
	case 1:
		return "( " + g.list(depth-1) + " )" + g.redirect()
	case 2:
		s := "if " + g.list(depth-1) + "; then " + g.list(depth-1) + ";"
		for range g.r.IntN(2) {
			s += " elif " + g.list(depth-1) + "; then " + g.list(depth-1) + ";"
		}
		if g.r.IntN(2) == 0 {
			s += " else " + g.list(depth-1) + ";"
		}
		return s + " fi"
	case 3:
		if g.inLoop {
			return g.simple()
		}
		g.inLoop = true
		defer func() { g.inLoop = false }()
		return "for v in x y; do " + g.list(depth-1) + "; done"
	default:
		return g.simple()
	}
}

// vtexec runs the compound forms it accepts as bash does: for random
// commands built of them, its output and exit status are bash's.
func TestCompoundFormsRunAsInBash(t *testing.T) {
	_, err := exec.LookPath("bash")
	require.NoError(t, err, "the test compares with bash")
	ws := fixture(t)
	g := &compoundGen{r: rand.New(rand.NewPCG(1, 2))}
	compared := 0
	for i := range 150 {
		cmd := g.list(2 + i%2)
		if i%4 == 0 {
			g.inLoop = true
			cmd = "for v in a b; do " + g.list(2) + "; done; " + cmd
			g.inLoop = false
		}
		if strings.Contains(cmd, "g.txt") {
			cmd += "; cat g.txt"
		}
		os.Remove(filepath.Join(ws, "g.txt"))
		res := runIn(t, ws, cmd)
		if res.Decision.Code == "too_long" {
			continue // more commands than one request may have
		}
		os.Remove(filepath.Join(ws, "g.txt"))
		compared++
		require.Equal(t, "allow", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		out, code := bashOutcome(t, ws, cmd)
		assert.Equal(t, out, res.Stdout, "stdout of %s\n%s", cmd, res.Stderr)
		assert.Equal(t, code, res.ExitCode, "status of %s", cmd)
	}
	t.Logf("%d commands compared", compared)
	assert.Greater(t, compared, 100)
}
