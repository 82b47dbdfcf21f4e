package vtexec

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Question shows, without running anything, the very question Run then
// asks about the same request.
func TestQuestionIsWhatRunAsks(t *testing.T) {
	hermetic(t)
	dir := testDir(t)
	e := NewEngine(Config{})
	t.Cleanup(func() { e.Close() })
	ctx := context.Background()

	d, q, err := e.Question(ctx, Request{Command: "ls", Workspace: dir})
	require.NoError(t, err)
	assert.Equal(t, "allow", string(d.Decision))
	assert.Nil(t, q)

	req := Request{Command: askCmd, Workspace: dir, Session: "q1"}
	d, q, err = e.Question(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "ask", string(d.Decision))
	require.NotNil(t, q)
	assert.NoFileExists(t, filepath.Join(dir, "out.tar"))

	ap := &fakeApprover{answer: AnswerOnce}
	req.Approver = ap
	_, err = e.Run(ctx, req)
	require.NoError(t, err)
	require.Len(t, ap.questions, 1)
	assert.Equal(t, q.Text(), ap.questions[0].Text())
	assert.Equal(t, *q, ap.questions[0])
	assert.FileExists(t, filepath.Join(dir, "out.tar"))
}
