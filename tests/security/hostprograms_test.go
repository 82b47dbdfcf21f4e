//go:build hostprograms

package security

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/execpolicy"
)

// These tests need the programs outside Debian's base that the tables
// decide on: .ci/run installs them, then runs go test -tags hostprograms.

// hostPrograms are the stand-in programs .ci/run installs (not make).
var hostPrograms = []string{"rg", "tree", "jq", "file"}

func requireHostPrograms(t *testing.T) {
	t.Helper()
	for _, name := range hostPrograms {
		_, ok := execpolicy.LookPath(name)
		require.True(t, ok, "%s is not on the trusted PATH (.ci/run installs it)", name)
	}
}

// The tables decide the same with the real programs as with stand-ins.
func TestTablesWithHostPrograms(t *testing.T) {
	requireHostPrograms(t)
	eng := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, "make")})
	t.Cleanup(func() { eng.Close() })
	for _, tab := range []struct {
		name  string
		cases []tableCase
	}{
		{"cases", cases}, {"readtools", readtoolsCases}, {"texttools", texttoolsCases},
		{"wrappers", wrapperCases}, {"writetools", writetoolsCases}, {"timeoutGroup", timeoutGroupCases},
		{"unknownProgramPath", unknownProgramPathCases}, {"git", gitCases},
	} {
		t.Run(tab.name, func(t *testing.T) { checkTableWith(t, eng, tab.cases) })
	}
}

// Commands the tables allow run with the real programs: their flags are
// ones the installed versions accept.
func TestHostProgramsRun(t *testing.T) {
	requireHostPrograms(t)
	ws := fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "data.json"), []byte(`[{"name":"alpha"},{"name":"beta"}]`), 0o644))
	for _, tc := range []struct{ cmd, stdout string }{
		{"rg -n TODO src", "a.txt:1:TODO: a"},
		{"rg --files", "src/b.go"},
		{"rg -l TODO", "src/a.txt"},
		{"rg -g '*.go' -t go -i todo .", "b.go"},
		{"rg --json -C 2 TODO src", `"type":"match"`},
		{"sh -c 'rg -n TODO src | head -n 3'", "TODO"},
		{"tree", "README.md"},
		{"tree -L 2 src", "a.txt"},
		{"tree -a -I '.git|node_modules' --dirsfirst", ".vtexec"},
		{"tree -J --noreport docs", `"guide.md"`},
		{"tree -o listing.txt src && cat listing.txt", "b.go"},
		{"jq -r '.[] | .name' data.json", "alpha\nbeta\n"},
		{"cat data.json | jq -r '.[] | .name'", "beta"},
		{"jq -n --arg x /etc/passwd '$x'", `"/etc/passwd"`},
		{"jq --rawfile t src/a.txt -n '$t'", `"TODO: a\n"`},
		{"file src/b.go README.md", "README.md:"},
		{"file -b --mime-type src/a.txt", "text/plain"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			res, err := testEngine.Run(context.Background(), vtexec.Request{Command: tc.cmd, Workspace: ws, AuditLog: "off"})
			require.NoError(t, err)
			require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
			assert.Equal(t, 0, res.ExitCode, "stderr: %s", res.Stderr)
			assert.Contains(t, res.Stdout, tc.stdout)
		})
	}
}

// Class 6: rg reads .ignore and .rgignore in every directory above what
// it searches. With one above the workspace, vtexec adds
// --no-ignore-parent, so what rg lists does not depend on a file outside;
// run as typed, rg leaves out what the outside file names (the probe
// works).
func TestRgIgnoresNoFileAboveTheWorkspace(t *testing.T) {
	requireHostPrograms(t)
	ws := fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(ws), ".ignore"), []byte("README*\n"), 0o644))
	res := runIn(t, ws, "rg --files")
	assert.Contains(t, res.Stdout, "README.md", "the outside .ignore is not read")
	assert.Equal(t, []string{"rg", "--files", "--no-ignore-parent"}, res.Decision.Commands[0].Argv)

	rg, _ := execpolicy.LookPath("rg")
	cmd := exec.Command(rg, "--files")
	cmd.Dir = ws
	out, _ := cmd.Output()
	assert.NotContains(t, string(out), "README.md", "as typed, rg obeys the file outside")
}
