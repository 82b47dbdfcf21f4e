package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

type onceApprover struct{ asked []vtexec.Question }

func (a *onceApprover) Approve(_ context.Context, q vtexec.Question) (vtexec.Answer, error) {
	a.asked = append(a.asked, q)
	return vtexec.AnswerOnce, nil
}

// A program the workspace holds (./bin/tool) is asked about, never
// judged by the validator of a program it is named after, never
// approvable always, and runs confined once approved.
func TestWorkspaceProgramAsksAndRunsConfined(t *testing.T) {
	ws := fixture(t)
	canary := filepath.Join(filepath.Dir(ws), "ws2", "secret.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "bin"), 0o755))
	script := "#!/bin/sh\necho ran\ncat " + canary + "\n"
	for _, name := range []string{"bin/tool", "bin/cat"} {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(script), 0o755))
	}
	ctx := context.Background()
	for _, cmd := range []string{"./bin/tool", "bin/tool x", "./bin/cat README.md", filepath.Join(ws, "bin/tool")} {
		d, err := testEngine.Check(ctx, vtexec.Request{Command: cmd, Workspace: ws})
		require.NoError(t, err)
		assert.Equal(t, "ask", string(d.Decision), cmd)
		assert.Equal(t, "workspace_program", d.Code, cmd)
		assert.True(t, d.NeverAlways, cmd)
	}
	ap := &onceApprover{}
	res, err := testEngine.Run(ctx, vtexec.Request{Command: "./bin/tool", Workspace: ws, Approver: ap, AuditLog: "off"})
	require.NoError(t, err)
	require.Len(t, ap.asked, 1, "%+v", res)
	assert.Equal(t, "ran\n", res.Stdout, "%+v", res)
	assert.NotEqual(t, 0, res.ExitCode, "the tool read a file outside: %s", res.Stdout)
	res, err = testEngine.Run(ctx, vtexec.Request{Command: "./bin/tool", Workspace: ws, Approver: ap, AuditLog: "off", Confinement: "off"})
	require.NoError(t, err)
	assert.Equal(t, "ran\nsecret\n", res.Stdout, "unconfined, the same tool reads it (the probe works)")
}
