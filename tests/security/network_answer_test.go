package security

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// A command that fetches from the network is asked about as such: the
// question offers "network", only that answer gives it the network (for
// this run), and a failure without it says why.
func TestNetworkIsAChoiceThePersonSees(t *testing.T) {
	ws := fixture(t)
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho offline >&2\nexit 1\n"), 0o755))
	e := vtexec.NewEngine(vtexec.Config{TrustedPath: bin + ":/usr/bin:/bin"})
	t.Cleanup(func() { e.Close() })
	var asked vtexec.Question
	answer := func(a vtexec.Answer) vtexec.Approver {
		return approverFunc(func(q vtexec.Question) vtexec.Answer { asked = q; return a })
	}
	run := func(cmd string, a vtexec.Answer) (vtexec.Result, error) {
		return e.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off", Approver: answer(a)})
	}

	res, err := run("npm install", vtexec.AnswerOnce)
	require.NoError(t, err)
	assert.True(t, asked.Network, "the question says it fetches from the network")
	assert.Contains(t, asked.Text(), "[n]etwork")
	assert.Empty(t, res.Confinement.NetworkGranted, "once: no network")
	var warned bool
	for _, w := range res.Warnings {
		warned = warned || w.Code == vtexec.CodeRanWithoutNetwork
	}
	assert.True(t, warned, "the failure says it ran without the network: %+v", res.Warnings)

	res, err = run("npm install", vtexec.AnswerNetwork)
	var re *vtexec.RequestError
	if errors.As(err, &re) {
		// No slirp4netns here: the grant was asked for and refused as such.
		assert.Equal(t, vtexec.CodeNetworkUnavailable, re.Code)
	} else {
		require.NoError(t, err)
		assert.Equal(t, []string{"npm"}, res.Confinement.NetworkGranted, "network: granted for this run")
	}

	res, err = run("npm run test", vtexec.AnswerOnce)
	require.NoError(t, err)
	assert.False(t, asked.Network, "npm run does not fetch")
	_, err = run("npm run test", vtexec.AnswerNetwork)
	assert.Error(t, err, "network is no answer to a question that does not offer it")

	// Where no person can be asked, the hint grants it ahead.
	d, err := e.Check(context.Background(), vtexec.Request{Command: "npm install", Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	assert.Contains(t, vtexec.NeedsApproval(d).Hint, "vtexec policy allow --network -- npm install")
}

type approverFunc func(vtexec.Question) vtexec.Answer

func (f approverFunc) Approve(_ context.Context, q vtexec.Question) (vtexec.Answer, error) {
	return f(q), nil
}
