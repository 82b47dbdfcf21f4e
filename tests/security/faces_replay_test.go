package security

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/serve"
)

// roundTripClient connects to s as a client of the protocol version in
// which a question comes back as the call's input requests and the
// client calls again with the answer and the round's request state. The
// test plays the client, so it can replay a state.
func roundTripClient(t *testing.T, s *serve.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }() // returns once the connection's jobs are gone
	never := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "replayer", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: never,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close(); <-done })
	return cs
}

// inlineClient connects to s with a protocol version in which the server
// asks with elicitation/create while the call waits; its person declines.
func inlineClient(t *testing.T, s *serve.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	decline := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "inline", Version: "0"}, &mcp.ClientOptions{ElicitationHandler: decline}).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close(); <-done })
	return cs
}

var onceAnswer = mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "once"}}}

// askedState calls tool without an answer and returns the round's state.
func askedState(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.True(t, res.NeedsInput(), "%s %v should ask", tool, args)
	require.NotEmpty(t, res.RequestState)
	return res.RequestState
}

// answered calls tool with a once answer and state; it reports whether
// the call went through.
func answered(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, state string) bool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args, InputResponses: onceAnswer, RequestState: state})
	if err != nil {
		return false // a tool error the SDK reports as an error
	}
	return !res.IsError && !res.NeedsInput()
}

func newReplayServer(t *testing.T, ws string, askTimeout time.Duration) *serve.Server {
	t.Helper()
	s, err := serve.New(serve.Options{Workspace: ws, AuditLog: "off", AskTimeout: askTimeout})
	require.NoError(t, err)
	return s
}

// A person's "once", answered by calling the tool again with the round's
// request state, runs the command once: the same state replayed, used on
// another connection, after it expired or after the server restarted
// approves nothing.
func TestRoundTripOnceCannotBeReplayed(t *testing.T) {
	ws := fixture(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	victim := filepath.Join(ws, "victim.txt")
	plant := func() { require.NoError(t, os.WriteFile(victim, []byte("v"), 0o644)) }
	rm := map[string]any{"command": "rm victim.txt"}

	s := newReplayServer(t, ws, time.Minute)
	a := roundTripClient(t, s)
	plant()
	state := askedState(t, a, serve.ToolShell, rm)
	require.True(t, answered(t, a, serve.ToolShell, rm, state), "the person's once runs it")
	require.NoFileExists(t, victim)

	for i := range 3 {
		plant()
		assert.False(t, answered(t, a, serve.ToolShell, rm, state), "replay %d ran again", i+1)
		assert.FileExists(t, victim)
	}

	// A state asked on one connection does not approve on another.
	b := roundTripClient(t, s)
	fresh := askedState(t, a, serve.ToolShell, rm)
	assert.False(t, answered(t, b, serve.ToolShell, rm, fresh), "a foreign connection's state")
	assert.FileExists(t, victim)

	// A restarted server honours nothing issued before.
	s2 := newReplayServer(t, ws, time.Minute)
	c := roundTripClient(t, s2)
	unspent := askedState(t, a, serve.ToolShell, rm)
	assert.False(t, answered(t, c, serve.ToolShell, rm, unspent), "a state from before the restart")
	assert.FileExists(t, victim)

	// An expired state approves nothing.
	short := newReplayServer(t, ws, 50*time.Millisecond)
	d := roundTripClient(t, short)
	old := askedState(t, d, serve.ToolShell, rm)
	time.Sleep(120 * time.Millisecond)
	assert.False(t, answered(t, d, serve.ToolShell, rm, old), "an expired state")
	assert.FileExists(t, victim)

	// A client asked inline (elicitation while the call waits) cannot
	// answer with a state: it is asked, and its person declines.
	inline := inlineClient(t, s)
	assert.False(t, answered(t, inline, serve.ToolShell, rm, askedState(t, a, serve.ToolShell, rm)), "a state sent by an inline client")
	assert.FileExists(t, victim)

	// The unspent state still works once where it was issued: the
	// refusals above are the ticket's, not a broken round trip.
	assert.True(t, answered(t, a, serve.ToolShell, rm, unspent))
	assert.NoFileExists(t, victim)
}

// The same for typing into a background job: one approved input is typed
// once.
func TestRoundTripWriteCannotBeReplayed(t *testing.T) {
	ws := fixture(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s := newReplayServer(t, ws, time.Minute)
	a := roundTripClient(t, s)
	res, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: serve.ToolShell, Arguments: map[string]any{"command": "sed s/a/b/", "background": true}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	var job struct {
		ID string `json:"job"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(b, &job))
	require.NotEmpty(t, job.ID, "%s", b)

	write := map[string]any{"id": job.ID, "input": "aaa\n"}
	state := askedState(t, a, "shell_write", write)
	require.True(t, answered(t, a, "shell_write", write, state))
	assert.False(t, answered(t, a, "shell_write", write, state), "the same input typed again on a replayed state")

	other := roundTripClient(t, s)
	fresh := askedState(t, a, "shell_write", write)
	assert.False(t, answered(t, other, "shell_write", write, fresh), "a foreign connection's state")

	// Exactly one line was typed.
	time.Sleep(200 * time.Millisecond)
	out, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "shell_read", Arguments: map[string]any{"id": job.ID, "wait_ms": 300}})
	require.NoError(t, err)
	b, _ = json.Marshal(out.StructuredContent)
	assert.Equal(t, 1, strings.Count(string(b), "baa"), "%s", b)
}
