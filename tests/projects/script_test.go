package projects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSession(t *testing.T) {
	steps, err := ParseSession("# orient\n$ ls -la\n\n? ask: runs the tests\n$ pytest -q\n$ cat > a.py <<'EOF'\n> def f():\n>\n>     # a comment in the file\n>     return 1\n> EOF\n? deny: reads outside\n$ cat /etc/shadow\n")
	require.NoError(t, err)
	require.Len(t, steps, 4)
	assert.Equal(t, Step{Line: 2, Command: "ls -la", Expect: "allow"}, steps[0])
	assert.Equal(t, Step{Line: 5, Command: "pytest -q", Expect: "ask", Why: "runs the tests"}, steps[1])
	assert.Equal(t, "cat > a.py <<'EOF'\ndef f():\n\n    # a comment in the file\n    return 1\nEOF", steps[2].Command)
	assert.Equal(t, "allow", steps[2].Expect)
	assert.Equal(t, "deny", steps[3].Expect)

	steps, err = ParseSession("~ ^\\s+Stored in directory\n~ sha256=\n$ pip install .\n$ ls\n")
	require.NoError(t, err)
	require.Len(t, steps[0].Volatile, 2)
	assert.True(t, steps[0].Volatile[0].MatchString("  Stored in directory: /tmp/x"))
	assert.Empty(t, steps[1].Volatile, "a volatile line covers the next command only")

	steps, err = ParseSession("= unordered\n$ rg -n x\n$ ls\n")
	require.NoError(t, err)
	assert.True(t, steps[0].Unordered)
	assert.False(t, steps[1].Unordered)

	for _, bad := range []string{
		"> orphan continuation",
		"$ ls\n\n> after a blank line",
		"? ask: x\n? deny: y\n$ ls",
		"? maybe: x\n$ ls",
		"? ask:\n$ ls",
		"? ask: nothing follows",
		"ls without a prompt",
		"$ ",
		"~ (unclosed\n$ ls",
		"~ x",
		"= unordered",
	} {
		_, err := ParseSession(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// Every session in testdata parses and is long enough to measure by.
func TestSessionsParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.session"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		steps, err := ParseSession(string(text))
		require.NoError(t, err, f)
		assert.GreaterOrEqual(t, len(steps), 150, "%s: a session of at least 150 commands", f)
		project := strings.TrimSuffix(f, ".session")
		fi, err := os.Stat(project)
		require.NoError(t, err, "%s has no project directory", f)
		assert.True(t, fi.IsDir())
	}
}
