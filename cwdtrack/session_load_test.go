package cwdtrack

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadCreatesReadsAndChecksTheWorkspace(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	made, err := s.Load("l-1", "/ws")
	require.NoError(t, err)
	assert.Equal(t, "/ws", made.Cwd)
	assert.NotEmpty(t, made.Token)
	_, err = s.Update("l-1", "/ws", func(x *Session) error { x.Cwd = "/ws/sub"; return nil })
	require.NoError(t, err)
	got, err := s.Load("l-1", "/ws")
	require.NoError(t, err)
	assert.Equal(t, "/ws/sub", got.Cwd)
	assert.Equal(t, made.Token, got.Token)
	_, err = s.Load("l-1", "/other")
	assert.True(t, errors.Is(err, ErrWorkspace), "%v", err)
	_, err = s.Load("../l-1", "/ws")
	assert.Error(t, err)
}
