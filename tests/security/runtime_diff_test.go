package security

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTimeGen writes random commands of the forms whose words are known
// only when they run: command substitution, $?, variables and ${…}
// expansions, while read, case, arithmetic, globs into substitutions, here-
// strings and here-documents, inside lists, groups, ifs and loops.
type runTimeGen struct {
	r *rand.Rand
	n int
}

func (g *runTimeGen) word() string {
	g.n++
	return fmt.Sprintf("w%d", g.n)
}

func (g *runTimeGen) simple() string {
	w := g.word()
	forms := []string{
		`x=$(echo ` + w + `)`,
		`echo "$x"`,
		`echo "[$x]" $?`,
		`false; echo "status $?"`,
		`test -f README.md; echo $?`,
		`y=${x:-` + w + `}; echo "$y"`,
		`echo ${x#w} ${#x} ${x/w/W}`,
		`n=$((n+2)); echo "n=$n"`,
		`echo $(( 6 * 7 ))`,
		`printf '%s\n' a ` + w + ` | while read -r l; do echo "got $l"; done`,
		`case $x in w*) echo "case w";; *) echo "case other";; esac`,
		`for f in $(echo a ` + w + `); do echo "f=$f"; done`,
		`echo $(ls src/*.txt)`,
		`wc -l < file.txt`,
		`[[ $x == w* ]] && echo match || echo nomatch`,
		`x=$(head -n 1 file.txt); echo "first $x"`,
		`echo "$(echo "$(echo ` + w + `)")"`,
		`read -r a b <<< "p ` + w + `"; echo "$b"`,
		"{ cat <<EOF\nhere $x " + w + "\nEOF\n}",
		`i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo "i$i"; done`,
		`git rev-parse --is-inside-work-tree >/dev/null 2>&1; echo "git $?"`,
		`grep -c o file.txt || echo "none $?"`,
		`v=$(wc -l < file.txt); echo "lines ${v// /}"`,
		`ls missing.txt 2>/dev/null; echo "ls $?"`,
		`arr=(a ` + w + `); echo "${arr[1]}" ${#arr[@]}`,
		`set -o pipefail; false | cat; echo "pipe $?"; set +o pipefail`,
		`(cd src && echo "$(ls)" && pwd >/dev/null); echo "in ${PWD##*/}"`,
		`cat file.txt | while read -r line; do [ "$line" = two ] && echo "found $line"; done; echo done`,
		`let n+=3; echo "let $n"`,
		`set -- a ` + w + `; echo "$2 $#"`,
		`declare -A m; m[k]=` + w + `; echo "${m[k]}"`,
		`echo ${x:0:2} ${x^^} ${x:+set}`,
		`diff <(echo a) <(echo ` + w + `) || echo "differ $?"`,
		`cat <(echo ` + w + `) <(echo "$x")`,
		`wc -l < <(printf 'a\nb\n')`,
		`comm -12 <(sort file.txt) <(printf 'one\nthree\n')`,
		`while read -r l; do echo "p $l"; done < <(head -n 2 file.txt)`,
	}
	return forms[g.r.IntN(len(forms))]
}

func (g *runTimeGen) list(depth int) string {
	return randomList(g.r, func() string { return g.stmt(depth) })
}

func (g *runTimeGen) stmt(depth int) string {
	if depth <= 0 {
		return g.simple()
	}
	switch g.r.IntN(5) {
	case 0:
		return "{ " + g.list(depth-1) + "; }"
	case 1:
		return "( " + g.list(depth-1) + " )"
	case 2:
		return "if " + g.list(depth-1) + "; then " + g.list(depth-1) + "; else " + g.list(depth-1) + "; fi"
	case 3:
		return "for v in p q; do " + g.list(depth-1) + "; done"
	default:
		return g.simple()
	}
}

// vtexec runs the forms whose words are known only at run time as bash
// does: for random commands built of them, every one is run (checked
// command by command), and its output and exit status are bash's.
func TestRunTimeFormsRunAsInBash(t *testing.T) {
	_, err := exec.LookPath("bash")
	require.NoError(t, err, "the test compares with bash")
	ws := fixture(t)
	g := &runTimeGen{r: rand.New(rand.NewPCG(3, 4))}
	for i := range 200 {
		cmd := "n=0; x=start; " + g.list(1+i%2)
		res := runIn(t, ws, cmd)
		require.Equal(t, "allow", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		require.Nil(t, res.Stopped, "%s: %+v", cmd, res.Stopped)
		out, code := bashOutcome(t, ws, cmd)
		assert.Equal(t, out, res.Stdout, "stdout of %s\n%s", cmd, res.Stderr)
		assert.Equal(t, code, res.ExitCode, "status of %s", cmd)
	}
}

// Forms the interpreter would run otherwise than bash, or in a way vtexec
// cannot confine, are refused, each with its reason, before anything runs.
func TestRunTimeFormsThatDifferAreRefused(t *testing.T) {
	ws := fixture(t)
	for _, cmd := range []string{
		`echo x > >(cat)`,                   // a pipe the box would write
		`f() { echo $1; }; f a`,             // functions: not modelled
		`x=1; export x; env`,                // export: what programs receive
		`declare -x Y=1; echo $Y`,           // the same
		`time ls $x`,                        // time: not modelled
		`sleep 1 & wait`,                    // background jobs
		`select x in a b; do echo $x; done`, // select reads a menu answer
		`coproc cat`,                        // coproc
	} {
		res := runIn(t, ws, cmd)
		assert.Equal(t, "deny", string(res.Decision.Decision), cmd)
		assert.NotEmpty(t, res.Decision.Hint, cmd)
		assert.Empty(t, res.Stdout, cmd)
	}
}
