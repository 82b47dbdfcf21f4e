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

// Agent and editor configuration inside the workspace is code something
// runs later: a write to it asks a person (once or for a session, never
// always), by whatever program and in whatever form; .git and .vtexec
// stay refused; reading it is fine.
var agentConfigCases = []tableCase{
	{"echo x > .envrc", want{"ask", "agent_config"}},
	{"echo x >> src/.envrc", want{"ask", "agent_config"}},
	{"cp file.txt .claude/settings.json", want{"ask", "agent_config"}},
	{"mkdir .vscode", want{"ask", "agent_config"}},
	{"mkdir -p .codex/x", want{"ask", "agent_config"}},
	{"tee .mcp.json < file.txt", want{"ask", "agent_config"}},
	{"touch src/.gitattributes", want{"ask", "agent_config"}},
	{"mv file.txt .cursor", want{"ask", "agent_config"}},
	{"cp -r src .gemini", want{"ask", "agent_config"}},
	{"sed -i s/a/b/ .idea/workspace.xml", want{"ask", "agent_config"}},
	{"echo x > .Claude/settings.json", want{"ask", "agent_config"}},
	{"cat .claude/settings.json", allow},
	{"ls .vscode", allow},
	{"echo x > .git/hooks/pre-commit", deny("protected_path")},
	{"echo x > .vtexec/policy.toml", deny("protected_path")},
	{"echo x > notes.md", allow},
}

func TestAgentConfigWritesAsk(t *testing.T) {
	ws := fixture(t)
	for _, f := range []string{".claude/settings.json", ".vscode/settings.json", ".idea/workspace.xml"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, f), []byte("{}\n"), 0o644))
	}
	e := standinEngine(t)
	for _, tc := range agentConfigCases {
		t.Run(tc.cmd, func(t *testing.T) {
			d, err := e.Check(context.Background(), requestFor(tc.cmd, ws))
			require.NoError(t, err)
			assert.Equal(t, tc.want.decision, string(d.Decision), "reason: %s", d.Reason)
			assert.Equal(t, tc.want.code, d.Code, "reason: %s", d.Reason)
			if d.Code == "agent_config" {
				assert.True(t, d.NeverAlways, "never approvable always")
				assert.NotEmpty(t, d.Hint)
			}
		})
	}
}

// The policy's protect list extends the names.
func TestAgentConfigNamesFromPolicy(t *testing.T) {
	ws := fixture(t)
	cfg := os.Getenv("XDG_CONFIG_HOME")
	require.NoError(t, os.MkdirAll(filepath.Join(cfg, "vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "vtexec", "policy.toml"), []byte("protect = [\"deploy/\"]\n"), 0o644))
	e := standinEngine(t)
	d, err := e.Check(context.Background(), requestFor("echo x > deploy/run.sh", ws))
	require.NoError(t, err)
	assert.Equal(t, "ask", string(d.Decision), d.Reason)
	assert.Equal(t, "agent_config", d.Code, d.Reason)
}

func requestFor(cmd, ws string) vtexec.Request {
	return vtexec.Request{Command: expandCase(cmd, ws), Workspace: ws, AuditLog: "off"}
}
