//go:build !windows

package security

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// The shell library reads a pattern's bracket expression to its closing
// "]"; an unclosed one is read to the end of the pattern and then read
// again as a literal "[", so a few thousand unclosed brackets cost it
// minutes of CPU, and braces multiply that by every word they expand
// to. Every place the checker gives the library a pattern (a glob, a
// case item, [[ == ]], a value used unquoted, a loop's items) counts
// what it would read first and refuses past a bound, with check_limit;
// the same shapes with their brackets closed are read as before.
func TestPatternsCostlyToReadAreRefused(t *testing.T) {
	ws := fixture(t)
	open := strings.Repeat("[", 3000) + strings.Repeat("x", 3000) + "*"
	closed := strings.Repeat("[x]", 1000) + strings.Repeat("x", 3000) + "*"
	shapes := map[string]string{
		"glob":         "ls %s",
		"component":    "ls %s/x",
		"case":         "case a in %s) echo a;; esac",
		"test clause":  "[[ a == %s ]] && echo a",
		"value":        "x=%s; echo $x",
		"loop items":   "for f in %s; do echo $f; done",
		"brace copies": "ls {a,b}{c,d}{e,f}{g,h}%s",
	}
	check := func(cmd string) vtexec.Decision {
		t.Helper()
		done := make(chan vtexec.Decision, 1)
		go func() {
			d, err := testEngine.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
			assert.NoError(t, err)
			done <- d
		}()
		select {
		case d := <-done:
			return d
		case <-time.After(2 * time.Minute):
			require.FailNow(t, "the check did not end", "%.60q", cmd)
			return vtexec.Decision{}
		}
	}
	for name, shape := range shapes {
		d := check(strings.Replace(shape, "%s", open, 1))
		assert.Equal(t, "check_limit", d.Code, "%s: %.80s", name, d.Reason)
		assert.Contains(t, d.Hint, "]", name)
		d = check(strings.Replace(shape, "%s", closed, 1))
		assert.NotEqual(t, "check_limit", d.Code, "%s: %.80s", name, d.Reason)
	}
	// What the fuzzer found: unclosed brackets before brace-expanded globs.
	d := check(strings.Repeat("[", 6000) + "l{!*{a,c}//*{a,c}*")
	assert.Equal(t, "check_limit", d.Code, "%.80s", d.Reason)
	// A written-out value of unclosed extglob groups, used as a case
	// item (groups are read whatever the options), with no glob character.
	d = check("x='" + strings.Repeat("@(", 40) + "x'; case a in $x) echo a;; esac")
	assert.Equal(t, "check_limit", d.Code, "%.80s", d.Reason)
	// Braces copying a long glob word read every copy.
	d = check("ls " + strings.Repeat("{a,b}", 14) + strings.Repeat("x*", 15000))
	assert.Equal(t, "check_limit", d.Code, d.Reason)
	d = check("ls {a,b}/*.go {1..300}/[0-9]*.txt")
	assert.NotEqual(t, "check_limit", d.Code, d.Reason)
	// A here-document's text is no pattern, whatever brackets it holds.
	d = check("cat > notes.txt <<'EOF'\n" + strings.Repeat(open+"\n", 20) + "EOF")
	assert.NotEqual(t, "check_limit", d.Code, "%.80s", d.Reason)
}
