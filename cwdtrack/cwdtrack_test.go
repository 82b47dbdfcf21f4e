package cwdtrack

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	token := NewToken()
	for _, m := range []Mark{
		{Cwd: "/ws/src", ExitCode: 0},
		{Cwd: "/ws/with space/and \"quotes\"\nnewline", ExitCode: 127},
		{Cwd: "/ws/ünïcode", ExitCode: -1},
	} {
		out := "line 1\nline 2\n" + Marker(token, m)
		body, got, ok := Parse(token, out)
		require.True(t, ok, out)
		assert.Equal(t, m, got)
		assert.Equal(t, "line 1\nline 2\n", body)
	}
}

func TestMarkerHidesToken(t *testing.T) {
	token := NewToken()
	line := Marker(token, Mark{Cwd: "/ws", ExitCode: 0})
	assert.NotContains(t, line, token)
	assert.Equal(t, 1, strings.Count(line, "\n"))
	assert.NotEqual(t, line, Marker(token, Mark{Cwd: "/ws", ExitCode: 0}), "each marker has its own nonce")
}

func TestSpoofedMarkersAreOutput(t *testing.T) {
	token := NewToken()
	real := Marker(token, Mark{Cwd: "/ws/src", ExitCode: 0})
	other := Marker(NewToken(), Mark{Cwd: "/etc", ExitCode: 0})
	forged := strings.Replace(real, `"/ws/src"`, `"/etc"`, 1)
	for name, out := range map[string]string{
		"wrong token":      "x\n" + other,
		"edited cwd":       "x\n" + forged,
		"no mac":           "x\n" + prefix + `cwd="/etc" exit=0` + "\n",
		"replayed earlier": real + "more output\n",
		"plain":            "hello\n",
		"empty":            "",
	} {
		body, _, ok := Parse(token, out)
		assert.False(t, ok, name)
		assert.Equal(t, out, body, name)
	}
}

func TestOutputWithoutTrailingNewline(t *testing.T) {
	token := NewToken()
	out := "partial" + "\n" + Marker(token, Mark{Cwd: "/ws", ExitCode: 3})
	body, m, ok := Parse(token, out)
	require.True(t, ok)
	assert.Equal(t, "partial\n", body)
	assert.Equal(t, 3, m.ExitCode)
}
