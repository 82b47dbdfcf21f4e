//go:build !windows

package security

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protectScript tries to change what the kernel keeps read-only and to
// reach a unix socket outside the workspace by its path.
const protectScript = `use strict; use Socket;
$| = 1;
open(my $t, '<', "targets.txt") or die "targets: $!";
chomp(my @targets = <$t>);
my ($socket) = @targets;
sub try { my ($name, $ok) = @_; print "$name: ", ($ok ? "ok" : "denied"), "\n"; }
my $f;
try("git-hook", open($f, '>', ".git/hooks/pre-commit") && print $f "#!/bin/sh\n");
try("git-config", open($f, '>>', ".git/config") && print $f "[core]\n\tfsmonitor = x\n");
try("claude-settings", (-d ".claude" || mkdir(".claude")) && open($f, '>', ".claude/settings.json") && print $f "{}");
try("vtexec-policy", (-d ".vtexec" || mkdir(".vtexec")) && open($f, '>', ".vtexec/policy.toml") && print $f "");
try("remove-vscode", rename(".vscode", "vscode-moved"));
socket(my $s, PF_UNIX, SOCK_STREAM, 0);
try("socket", connect($s, pack_sockaddr_un($socket)));
try("write-inside", open($f, '>', "inside.txt") && print $f "y");
`

func TestKernelKeepsProtectedNamesAndSockets(t *testing.T) {
	for _, tc := range []struct {
		name, confinement, policy string
		want, missing             string // the verdicts on existing names, and on missing ones during the run
	}{
		{"default", "", "", "denied", "ok"},
		{"placeholders", "", "placeholders = true\n", "denied", "denied"},
		{"off", "off", "", "ok", "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newAttackSetup(t)
			require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
				[]byte(tc.policy+"[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(protectScript), 0o644))
			for _, d := range []string{".git/hooks", ".vscode"} {
				require.NoError(t, os.MkdirAll(filepath.Join(s.ws, d), 0o755))
			}
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, ".git/config"), []byte("[core]\n"), 0o644))
			// A short path: unix socket paths are limited to 108 bytes.
			sockDir, err := os.MkdirTemp("", "vts")
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(sockDir) })
			sock := filepath.Join(sockDir, "s")
			listenUnix(t, sock)
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "targets.txt"), []byte(sock+"\n"), 0o644))
			res, got := s.run(t, tc.confinement)
			for _, a := range []string{"git-hook", "git-config", "remove-vscode", "socket"} {
				assert.Equal(t, tc.want, got[a], "%s\n%s%s", a, res.Stdout, res.Stderr)
			}
			for _, a := range []string{"claude-settings", "vtexec-policy"} {
				if tc.name == "default" && got[a] == "denied" {
					// The plant watch may move the new directory away
					// before the file in it is opened: disarmed earlier.
					continue
				}
				assert.Equal(t, tc.missing, got[a], "%s\n%s%s", a, res.Stdout, res.Stderr)
			}
			assert.Equal(t, "ok", got["write-inside"], res.Stdout+res.Stderr)
			switch tc.name {
			case "default":
				// Made during the run, moved out of the workspace after it.
				for _, d := range []string{".claude", ".vtexec"} {
					assert.NoDirExists(t, filepath.Join(s.ws, d))
					assert.Contains(t, res.Disarmed, filepath.Join(s.ws, d))
				}
			case "placeholders":
				for _, d := range []string{".claude", ".vtexec"} {
					entries, err := os.ReadDir(filepath.Join(s.ws, d))
					require.NoError(t, err, "a placeholder stands for the missing %s", d)
					assert.Empty(t, entries, "nothing was created in %s", d)
				}
			}
			if tc.want == "denied" {
				assert.NoFileExists(t, filepath.Join(s.ws, ".git/hooks/pre-commit"))
				assert.DirExists(t, filepath.Join(s.ws, ".vscode"))
			}
		})
	}
}

// TestKernelGitWritesHistoryButNotHooks: an approved git commit works in
// the box; the same box keeps .git/hooks and .git/config read-only, and
// other programs cannot write the git directory at all.
func TestKernelGitWritesHistoryButNotHooks(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n"), 0o644))
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = s.ws
		cmd.Env = []string{"HOME=" + s.home, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git("init", "-q")
	git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "one")
	require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
		[]byte("[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n\n[[rule]]\nprogram = \"git\"\nsubcommand = [\"commit\"]\ndecision = \"allow\"\n"), 0o644))
	run := func(command string) runJSON {
		cmd := s.command(t, "")
		cmd.Args[len(cmd.Args)-1] = command
		out, err := cmd.Output()
		var res runJSON
		require.NoError(t, jsonUnmarshal(out, &res), "%s %v", out, err)
		return res
	}
	res := run("git commit -q --allow-empty -m two")
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	res = run("git log --format=%s/%an")
	assert.Equal(t, "two/Ada\none/t\n", res.Stdout, res.Stderr, "the commit keeps the user's name")
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte("print 1;\n"), 0o644))
	res = run("git status --short")
	assert.Equal(t, 0, res.ExitCode, res.Stderr)
	assert.Contains(t, res.Stdout, "?? attack.pl")
	res = run("git diff --stat")
	assert.Equal(t, 0, res.ExitCode, res.Stderr)

	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(`
for my $p (".git/hooks/post-commit", ".git/config", ".git/HEAD") {
	print "$p: ", (open(my $f, '>>', $p) ? "ok" : "denied"), "\n";
}`), 0o644))
	res = run("perl attack.pl")
	assert.Equal(t, ".git/hooks/post-commit: denied\n.git/config: denied\n.git/HEAD: denied\n", res.Stdout, res.Stderr)
	assert.True(t, strings.Contains(string(res.Confinement), filepath.Join(s.ws, ".git")), string(res.Confinement))
}

// listenUnix accepts (and closes) connections on a unix socket at path
// until the test ends.
func listenUnix(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}
