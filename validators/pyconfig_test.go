package validators

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Configuration files read as Python's configparser reads them.
func TestParseINI(t *testing.T) {
	ini, err := parseINI([]byte("# comment\n; another\n[flake8]\nMax-Line-Length = 100\nexclude:\n    .venv,\n    build\n\n[flake8:local-plugins]\nextension =\n\tX = mod:Plugin\n"))
	require.NoError(t, err)
	assert.Equal(t, "100", ini["flake8"]["max-line-length"], "keys are lower case")
	assert.Equal(t, []string{".venv", "build"}, splitConfigList(ini["flake8"]["exclude"]))
	assert.Contains(t, ini["flake8:local-plugins"]["extension"], "X = mod:Plugin", "a continuation joins its key's value")
	for _, bad := range []string{"key = outside a section\n", "[s]\n  continuation first\n", "[s]\nno separator\n"} {
		_, err := parseINI([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
}
