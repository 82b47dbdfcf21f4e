package security

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// Secrets in vtexec's own environment never reach a command.
func TestSecretsInEnvironmentDoNotReachCommands(t *testing.T) {
	ws := fixture(t)
	secrets := map[string]string{
		"GITHUB_TOKEN":          "ghp_vtexecTestSecret1",
		"AWS_SECRET_ACCESS_KEY": "vtexecTestSecret2",
		"OPENAI_API_KEY":        "sk-vtexecTestSecret3",
		"SSH_AUTH_SOCK":         "/tmp/vtexecTestSecret4.sock",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	for _, cmd := range []string{"printenv", "env", "printenv GITHUB_TOKEN", "printenv AWS_SECRET_ACCESS_KEY OPENAI_API_KEY", "env -0"} {
		res, err := testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
		require.NoError(t, err)
		require.Equal(t, "allow", string(res.Decision.Decision), "%s: %s", cmd, res.Decision.Reason)
		for k, v := range secrets {
			assert.NotContains(t, res.Stdout, v, "%s leaked %s", cmd, k)
			assert.NotContains(t, res.Stdout, k+"=", "%s leaked %s", cmd, k)
		}
	}
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: "printenv GITHUB_TOKEN", Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, 1, res.ExitCode, "the variable is not set for the command")
}
