package security

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// A list is checked as a whole before anything runs, so a later part is
// checked against the tree as it was. An earlier part that copies or moves
// a symbolic link (or a directory holding one) can make a path that did
// not exist at check time lead outside, into .git or into .vtexec by the
// time the later part runs. Each later step is therefore checked again
// just before it starts, and cp and mv may not share a pipeline, whose
// commands run at the same time.

// sequenceFixture is the security fixture plus links that are harmless
// where they are: src/deep/top -> ../.. (the workspace root),
// src/out -> ../../ws2, victim -> ../ws2/secret.txt (outside, refused when
// used directly), g -> .git and gcfg -> .git/config.
func sequenceFixture(t *testing.T) string {
	ws := fixture(t)
	for name, target := range map[string]string{"src/deep/top": "../..", "src/out": "../../ws2", "g": ".git",
		"victim": "../ws2/secret.txt", "gcfg": ".git/config"} {
		require.NoError(t, os.Symlink(target, filepath.Join(ws, name)))
	}
	return ws
}

func runIn(t *testing.T, ws, cmd string) vtexec.Result {
	t.Helper()
	res, err := testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
	require.NoError(t, err)
	return res
}

func TestSequenceCannotEscapeThroughMovedLinks(t *testing.T) {
	cases := []struct {
		name, cmd string
		// code is the refusal's code, from the check (cp and mv do not
		// create links that lead outside) or from the check before the
		// later step runs; "" means the check refuses the pipeline.
		code string
	}{
		{"read through a copied directory", "cp -r src copy && cat copy/out/secret.txt", "outside_workspace"},
		{"read through a moved directory", "mv src moved && cat moved/out/secret.txt", "outside_workspace"},
		{"read through a link moved up a level", "cp -P src/deep/top top2 && cat top2/ws2/secret.txt", "outside_workspace"},
		{"head through a moved link", "mv src/deep/top t && head -n 5 t/ws2/secret.txt", "outside_workspace"},
		{"redirect through a moved link", "cp -P src/deep/top top2 && echo pwned > top2/ws2/pwned.txt", "outside_workspace"},
		{"touch through a moved link", "cp -P src/deep/top top2 && touch top2/ws2/pwned.txt", "outside_workspace"},
		{"mkdir through a moved link", "cp -P src/deep/top top2 && mkdir -p top2/ws2/pwned", "outside_workspace"},
		{"tee through a moved link", "mv src/deep/top t && echo pwned | tee t/ws2/pwned.txt", "outside_workspace"},
		{"cp into a moved directory", "cp -r src copy && cp file.txt copy/out/pwned.txt", "outside_workspace"},
		{".vtexec through a copied link", "mkdir -p d1/d2 && cp -P src/deep/top d1/d2/l && echo '# planted' > d1/d2/l/.vtexec/policy.toml", "protected_path"},
		{".git through a renamed link", "mv g g2 && printf '[diff]\\n\\texternal = touch\\n' >> g2/config", "protected_path"},
		// The steps after cd run in src/deep by name; once it is moved
		// away, the next step is stopped before it could run elsewhere.
		{"working directory moved away", "cd src/deep && mv ../deep ../deep0 && cp -P ../deep0/top ../deep && cat ws2/secret.txt", "bad_path"},
		{"cd into a link created earlier", "cp -P src/deep/top t2 && cd t2 && cat ws2/secret.txt", "outside_workspace"},
		{"pipeline with mv", "mv docs moved | cat moved/guide.md", "bad_usage"},
		{"pipeline with cp", "cp -r docs copy | sed -n p README.md copy/guide.md", "bad_usage"},
		{"pipeline with a wrapped mv", "timeout 5 mv docs moved | cat moved/guide.md", "bad_usage"},
		// A link made inside, whose directory a later step moves: only the
		// check before that step sees the link.
		{"link made inside, then its directory moved", "mkdir -p a/b && cp -P src/deep/top a/b/l && mv a/b c && cat c/l/ws2/secret.txt", "outside_workspace"},
		// cp -r writes through a link already where an entry lands.
		{"copy onto a planted link", "mkdir -p pl && echo pwned > pl/victim && cp -r pl/. .", "outside_workspace"},
		{"copy onto a planted link with -T", "mkdir -p pl && echo pwned > pl/victim && cp -rT pl .", "outside_workspace"},
		{"copy onto a planted link into .git", "mkdir -p pl && echo pwned > pl/gcfg && cp -a pl/. .", "protected_path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := sequenceFixture(t)
			ws2 := filepath.Join(filepath.Dir(ws), "ws2")
			res := runIn(t, ws, tc.cmd)

			assert.NotContains(t, res.Stdout+res.Stderr, "secret\n", "the secret was read")
			entries, err := os.ReadDir(ws2)
			require.NoError(t, err)
			require.Len(t, entries, 1, "something was written outside: %v", entries)
			body, err := os.ReadFile(filepath.Join(ws, ".git", "config"))
			require.NoError(t, err)
			assert.Equal(t, "[core]\n", string(body), ".git/config changed")
			body, err = os.ReadFile(filepath.Join(ws, ".vtexec", "policy.toml"))
			require.NoError(t, err)
			assert.Empty(t, string(body), ".vtexec/policy.toml changed")

			assert.Equal(t, vtexec.ExitRefused, res.ExitCode)
			if res.Decision.Decision == "deny" {
				assert.Equal(t, tc.code, res.Decision.Code, res.Decision.Reason)
				assert.Nil(t, res.Stopped)
				return
			}
			require.Equal(t, "allow", string(res.Decision.Decision), "%s: %s", res.Decision.Code, res.Decision.Reason)
			require.NotNil(t, res.Stopped, "no later part was stopped; stderr: %s", res.Stderr)
			assert.Equal(t, tc.code, res.Stopped.Code, "%s", res.Stopped.Reason)
			assert.NotEmpty(t, res.Stopped.Reason)
			assert.NotEmpty(t, res.Stopped.Hint)
			assert.NotEmpty(t, res.Stopped.Argv)
			assert.Contains(t, res.Stderr, res.Stopped.Reason)
		})
	}
}

// Lists whose earlier parts change the tree in ordinary ways still run.
func TestSequenceEverydayListsStillRun(t *testing.T) {
	for _, cmd := range []string{
		"mkdir -p build/out && cp file.txt build/out/ && cat build/out/file.txt",
		"cp -r docs copy && cat copy/guide.md",
		"mv docs moved && cat moved/guide.md && mv moved docs",
		"mkdir -p a/b && cp -P src/deep/top a/b/l && cat a/b/l/file.txt",
		"touch new.txt && echo one > new.txt && cat new.txt",
		"cd src && mkdir gen && cd gen && echo x > f && cat f",
		"rm -f nothing.txt; echo done",
	} {
		t.Run(cmd, func(t *testing.T) {
			ws := sequenceFixture(t)
			res, err := testEngine.Run(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off", Approver: approveOnce{}})
			require.NoError(t, err)
			require.Nil(t, res.Stopped, "%+v", res.Stopped)
			assert.Equal(t, 0, res.ExitCode, "%s%s", res.Stdout, res.Stderr)
			assert.False(t, strings.Contains(res.Stderr, "vtexec:"), res.Stderr)
		})
	}
}
