//go:build !windows

package security

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vtexec/vtexec/internal/testbin"
)

// The kernel floor is tested independently of any validator hole: a
// person approves a tool (perl, which is in every Debian) whose script
// attacks the way a fooled validator would let a command attack. Each
// attempt must fail under the default confinement and succeed with
// confinement off, which shows the test can fail.

// attackScript tries each escape and prints "NAME: ok" or "NAME: denied".
const attackScript = `use strict; use Socket; use POSIX ();
open(my $t, '<', "targets.txt") or die "targets: $!";
chomp(my @targets = <$t>);
my ($canary, $outdir, $port, $gitconfig, $marker) = @targets;
$| = 1;
sub try { my ($name, $ok) = @_; print "$name: ", ($ok ? "ok" : "denied"), "\n"; }
my $c = '';
if (open(my $f, '<', $canary)) { $c = <$f> // ''; }
try("read-outside", $c =~ /CANARY-7/);
my ($w, $i);
try("write-outside", open($w, '>', "$outdir/pwned") && print $w "x");
socket(my $s, PF_INET, SOCK_STREAM, 0);
try("connect", connect($s, sockaddr_in($port, inet_aton("127.0.0.1"))));
my $found = 0;
for my $e (glob("/proc/[0-9]*/environ")) {
	if (open(my $h, '<', $e)) { local $/; my $env = <$h> // ''; $found = 1 if $env =~ /VTEXEC_TEST_SECRET=s3cr3t-env/; }
}
try("environ", $found);
my $seen = 0;
for my $c (glob("/proc/[0-9]*/cmdline")) {
	if (open(my $h, '<', $c)) { local $/; my $cl = <$h> // ''; $seen = 1 if $cl =~ /CMDLINE-SECRET-3/; }
}
try("cmdline", $seen);
my $g = '';
if (open(my $h, '<', $gitconfig)) { local $/; $g = <$h> // ''; }
my $gg = ` + "`git config --global --get remote.origin.url 2>/dev/null`" + ` // '';
try("gitconfig", $g =~ /ghp_s3cr3t/ || $gg =~ /ghp_s3cr3t/);
try("write-inside", open($i, '>', "inside.txt") && print $i "y");
my $k = fork();
if ($k == 0) {
	POSIX::setsid();
	if (fork() == 0) { $0 = $marker; close STDOUT; close STDERR; sleep 30; exit 0; }
	exit 0;
}
waitpid($k, 0);
print "daemon: started\n";
sleep(30) if -e "linger";
`

var (
	buildOnce sync.Once
	vtexecBin string
	buildErr  error
)

// builtVtexec builds the vtexec command once per test binary, or takes
// the one VTEXEC_TEST_BINARY names (CI runs these tests again as an
// unprivileged user, who has no Go build cache).
func builtVtexec(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("VTEXEC_TEST_BINARY"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vtexec-bin-")
		if err != nil {
			buildErr = err
			return
		}
		vtexecBin, buildErr = testbin.Build(dir)
	})
	require.NoError(t, buildErr)
	return vtexecBin
}

// attackSetup is a workspace with the attack script, a canary and a
// home with a secret-holding git configuration outside it, a user
// policy that allows perl, and a TCP listener on 127.0.0.1.
type attackSetup struct {
	ws, outside, home, config, state string
	port                             int
	marker                           string
}

func newAttackSetup(t *testing.T) *attackSetup {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	s := &attackSetup{
		ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), home: filepath.Join(base, "home"),
		config: filepath.Join(base, "config"), state: filepath.Join(base, "state"),
		marker: fmt.Sprintf("vtexec-test-daemon-%d", time.Now().UnixNano()),
	}
	for _, d := range []string{s.ws, s.outside, s.home, filepath.Join(s.config, "vtexec")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "attack.pl"), []byte(attackScript), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.outside, "canary"), []byte("CANARY-7\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.home, ".gitconfig"),
		[]byte("[remote \"origin\"]\n\turl = https://x:ghp_s3cr3t@example.com/r.git\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
		[]byte("[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n"), 0o644))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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
	s.port = ln.Addr().(*net.TCPAddr).Port
	// The targets are data the checker never sees, as when a validator is
	// fooled or a build runs code of its own.
	targets := fmt.Sprintf("%s\n%s\n%d\n%s\n%s\n", filepath.Join(s.outside, "canary"), s.outside, s.port,
		filepath.Join(s.home, ".gitconfig"), s.marker)
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, "targets.txt"), []byte(targets), 0o644))
	t.Cleanup(func() { killMarked(s.marker) })
	return s
}

// command prepares vtexec run of the attack with a secret in vtexec's
// own environment.
func (s *attackSetup) command(t *testing.T, confinement string) *exec.Cmd {
	return s.vtexecRun(t, confinement, "perl attack.pl")
}

// vtexecRun prepares vtexec run --json of line in the workspace, with the
// setup's home, configuration and state, and a secret in vtexec's own
// environment.
func (s *attackSetup) vtexecRun(t *testing.T, confinement, line string) *exec.Cmd {
	args := []string{"run", "--json", "--audit", "off", "--workspace", s.ws}
	if confinement != "" {
		args = append(args, "--confinement", confinement)
	}
	cmd := exec.Command(builtVtexec(t), append(args, "--", line)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.home, "XDG_CONFIG_HOME=" + s.config,
		"XDG_STATE_HOME=" + s.state, "VTEXEC_TEST_SECRET=s3cr3t-env", "CI=true", "TMPDIR=" + os.TempDir()}
	return cmd
}

type runJSON struct {
	Decision struct {
		Decision, Code, Reason string
	}
	// Disarmed are the paths of result.disarmed.
	Disarmed    []string        `json:"-"`
	ExitCode    int             `json:"exit_code"`
	Stdout      string          `json:"stdout"`
	Stderr      string          `json:"stderr"`
	Confinement json.RawMessage `json:"confinement"`
}

// serveLines runs each line as a shell call of one vtexec serve --jsonl
// in the workspace, a moment apart as an agent's calls come, and
// returns the "NAME: VALUE" lines of each call's output.
func (s *attackSetup) serveLines(t *testing.T, lines ...string) []map[string]string {
	t.Helper()
	cmd := exec.Command(builtVtexec(t), "serve", "--jsonl", "--audit", "off", "--workspace", s.ws)
	cmd.Env = s.vtexecRun(t, "", "").Env
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { stdin.Close(); cmd.Wait() }()
	dec := json.NewDecoder(stdout)
	var out []map[string]string
	for i, line := range lines {
		time.Sleep(100 * time.Millisecond)
		req, err := json.Marshal(map[string]any{"id": i + 1, "tool": "shell", "arguments": map[string]any{"command": line}})
		require.NoError(t, err)
		_, err = stdin.Write(append(req, '\n'))
		require.NoError(t, err)
		var answer struct {
			IsError bool   `json:"is_error"`
			Text    string `json:"text"`
			Result  struct {
				Stdout string `json:"stdout"`
			} `json:"result"`
		}
		require.NoError(t, dec.Decode(&answer))
		require.False(t, answer.IsError, answer.Text)
		got := map[string]string{}
		for _, l := range strings.Split(answer.Result.Stdout, "\n") {
			if name, verdict, ok := strings.Cut(l, ": "); ok {
				got[name] = verdict
			}
		}
		out = append(out, got)
	}
	return out
}

func (s *attackSetup) run(t *testing.T, confinement string) (runJSON, map[string]string) {
	return s.runLine(t, confinement, "perl attack.pl")
}

// runLine runs line with vtexec, which must allow it, and returns the
// result and the "NAME: VALUE" lines of its output.
func (s *attackSetup) runLine(t *testing.T, confinement, line string) (runJSON, map[string]string) {
	t.Helper()
	out, err := s.vtexecRun(t, confinement, line).Output()
	require.NoError(t, err, "%s", out)
	var res runJSON
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	require.Equal(t, "allow", string(res.Decision.Decision), res.Decision.Reason)
	var disarmed struct {
		Disarmed []struct {
			Path string `json:"path"`
		} `json:"disarmed"`
	}
	require.NoError(t, json.Unmarshal(out, &disarmed))
	for _, d := range disarmed.Disarmed {
		res.Disarmed = append(res.Disarmed, d.Path)
	}
	got := map[string]string{}
	for _, line := range strings.Split(res.Stdout, "\n") {
		if name, verdict, ok := strings.Cut(line, ": "); ok {
			got[name] = verdict
		}
	}
	return res, got
}

func TestKernelFloorHoldsAnApprovedTool(t *testing.T) {
	// Another process of the user's, with a secret on its command line.
	other := exec.Command("perl", "-e", "sleep 30", "CMDLINE-SECRET-3")
	require.NoError(t, other.Start())
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	attempts := []string{"read-outside", "write-outside", "connect", "environ", "gitconfig", "cmdline"}
	t.Run("default", func(t *testing.T) {
		s := newAttackSetup(t)
		res, got := s.run(t, "")
		for _, a := range attempts {
			assert.Equal(t, "denied", got[a], "%s under confinement\nstdout:\n%s\nstderr:\n%s", a, res.Stdout, res.Stderr)
		}
		assert.Equal(t, "ok", got["write-inside"], res.Stdout+res.Stderr)
		assert.Equal(t, "started", got["daemon"], res.Stdout+res.Stderr)
		assert.NoFileExists(t, filepath.Join(s.outside, "pwned"))
		assert.FileExists(t, filepath.Join(s.ws, "inside.txt"))
		assert.Eventually(t, func() bool { return len(markedPids(s.marker)) == 0 }, time.Second, 20*time.Millisecond,
			"the setsid daemon outlived the run")
		assert.Contains(t, string(res.Confinement), `"landlock"`)
	})
	t.Run("interpreter", func(t *testing.T) {
		// The same tool reached by the interpreter, its name from a
		// variable: the same box.
		s := newAttackSetup(t)
		res, got := s.runLine(t, "", `script=$(echo attack.pl); perl "$script"; echo "status: $?"`)
		for _, a := range attempts {
			assert.Equal(t, "denied", got[a], "%s under confinement, run by the interpreter\nstdout:\n%s\nstderr:\n%s", a, res.Stdout, res.Stderr)
		}
		assert.Equal(t, "ok", got["write-inside"], res.Stdout+res.Stderr)
		assert.Equal(t, "0", got["status"], res.Stdout+res.Stderr)
		assert.NoFileExists(t, filepath.Join(s.outside, "pwned"))
		assert.Eventually(t, func() bool { return len(markedPids(s.marker)) == 0 }, time.Second, 20*time.Millisecond,
			"the setsid daemon outlived the run")
		assert.Contains(t, string(res.Confinement), `"landlock"`)
	})
	t.Run("server", func(t *testing.T) {
		// A server's calls: without root, the later calls start from the
		// box's template or a child parked in a copy of it (see
		// confine/template_linux.go, park_linux.go). The same box holds
		// for each.
		s := newAttackSetup(t)
		for i, got := range s.serveLines(t, "perl attack.pl", "perl attack.pl", "perl attack.pl") {
			for _, a := range attempts {
				assert.Equal(t, "denied", got[a], "%s under confinement, call %d of a server", a, i+1)
			}
			assert.Equal(t, "ok", got["write-inside"], "call %d", i+1)
			assert.NoFileExists(t, filepath.Join(s.outside, "pwned"))
		}
		assert.Eventually(t, func() bool { return len(markedPids(s.marker)) == 0 }, time.Second, 20*time.Millisecond,
			"a setsid daemon outlived its call")
	})
	t.Run("off", func(t *testing.T) {
		s := newAttackSetup(t)
		res, got := s.run(t, "off")
		for _, a := range attempts {
			assert.Equal(t, "ok", got[a], "%s with confinement off: the probe itself must work\n%s%s", a, res.Stdout, res.Stderr)
		}
		assert.FileExists(t, filepath.Join(s.outside, "pwned"))
		time.Sleep(100 * time.Millisecond)
		assert.NotEmpty(t, markedPids(s.marker), "without confinement the daemon survives (the probe works)")
	})
}

// TestKernelFloorSIGKILLOfVtexec kills vtexec while the approved tool and
// its setsid, double-forked daemon run: nothing of them may survive.
func TestKernelFloorSIGKILLOfVtexec(t *testing.T) {
	for _, tc := range []struct {
		confinement string
		line        string
		survives    bool
	}{{"", "perl attack.pl", false}, {"", `s=attack.pl; perl "$s"; echo "status $?"`, false}, {"off", "perl attack.pl", true}} {
		t.Run("confinement="+tc.confinement+" "+tc.line, func(t *testing.T) {
			s := newAttackSetup(t)
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "linger"), nil, 0o644))
			cmd := s.vtexecRun(t, tc.confinement, tc.line)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			require.Eventually(t, func() bool { return len(markedPids(s.marker)) > 0 }, 10*time.Second, 20*time.Millisecond, "daemon never started: %s", &out)
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			cmd.Wait()
			if tc.survives {
				time.Sleep(200 * time.Millisecond)
				assert.NotEmpty(t, markedPids(s.marker), "without confinement the daemon survives (the probe works)")
				return
			}
			assert.Eventually(t, func() bool { return len(markedPids(s.marker)) == 0 }, time.Second, 20*time.Millisecond,
				"a process of the command outlived vtexec's SIGKILL")
		})
	}
}

// markedPids are the processes whose command line is marker.
func markedPids(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if strings.HasPrefix(string(cmdline), marker) && !strings.Contains(string(stat), ") Z ") {
			pids = append(pids, pid)
		}
	}
	return pids
}

func killMarked(marker string) {
	for _, pid := range markedPids(marker) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// forkBurst forks as many children as it can from its first statement,
// before anything else could run, and prints how many it got.
const forkBurst = `my @kids; for (1..200) { my $p = fork(); last unless defined $p; if ($p == 0) { sleep 3; exit 0 } push @kids, $p }
print "forked: ", scalar(@kids), "\n"; kill 'KILL', @kids; waitpid($_, 0) for @kids;
`

// TestProcessBoundHoldsFromTheFirstFork runs an approved tool that forks
// at once under a policy limit of 64 processes: the bound must hold from
// the program's first instruction, not from some moment after it started
// (as root the bound is a pids cgroup, which a process joining late
// would escape). With confinement off the same burst gets all 200.
func TestProcessBoundHoldsFromTheFirstFork(t *testing.T) {
	for _, tc := range []struct {
		confinement string
		bounded     bool
	}{{"", true}, {"off", false}} {
		t.Run("confinement="+tc.confinement, func(t *testing.T) {
			s := newAttackSetup(t)
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "burst.pl"), []byte(forkBurst), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
				[]byte("[limits]\nprocesses = 64\n\n[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n"), 0o644))
			for range 5 {
				res, got := s.runLine(t, tc.confinement, "perl burst.pl")
				forked, err := strconv.Atoi(got["forked"])
				require.NoError(t, err, "stdout %q, stderr %q", res.Stdout, res.Stderr)
				if tc.bounded {
					require.Less(t, forked, 64, "a burst from the first instruction escaped the process bound")
				} else {
					require.Equal(t, 200, forked, "without confinement the burst is not bounded (the probe works)")
				}
			}
		})
	}
}

// TestPlaceholdersStayInTheWorkspace: a project policy protects a name
// beneath a committed link to a directory outside. The box makes
// placeholders for missing protected names, as root, before any command
// runs: it must never make one where the link leads.
func TestPlaceholdersStayInTheWorkspace(t *testing.T) {
	s := newAttackSetup(t)
	require.NoError(t, os.Symlink(s.outside, filepath.Join(s.ws, "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(s.ws, ".vtexec"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.ws, ".vtexec", "policy.toml"),
		[]byte("protect = [\"link/planted-dir/\", \"link/planted-file\"]\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
		[]byte("placeholder_files = true\n"), 0o644))
	out, _ := s.vtexecRun(t, "", "ls").CombinedOutput()
	assert.NoDirExists(t, filepath.Join(s.outside, "planted-dir"), "%s", out)
	assert.NoFileExists(t, filepath.Join(s.outside, "planted-file"), "%s", out)
}

// TestKernelKeepsMissingFileNamesWithPlaceholders: with placeholder_files
// in the user's policy, protected file names that did not exist get
// empty placeholders the kernel keeps read-only, so an approved tool
// cannot create them. Without it (or when only the project's own policy
// asks), it can during the run, and what it made is moved out of the
// workspace when the run ends.
func TestKernelKeepsMissingFileNamesWithPlaceholders(t *testing.T) {
	const script = `for my $n (".envrc", ".mcp.json", ".gitattributes") { my $f; my $ok = open($f, '>', $n) && print $f "planted"; close $f if $ok; print "$n: ", ($ok ? "ok" : "denied"), "\n" }`
	for _, tc := range []struct {
		name, user, project string
		kept                bool
	}{
		{"user policy", "placeholder_files = true\n", "", true},
		{"default", "", "", false},
		{"project policy only", "", "placeholder_files = true\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newAttackSetup(t)
			require.NoError(t, os.WriteFile(filepath.Join(s.ws, "plant.pl"), []byte(script), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(s.config, "vtexec", "policy.toml"),
				[]byte(tc.user+"[[rule]]\nprogram = \"perl\"\ndecision = \"allow\"\n"), 0o644))
			if tc.project != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(s.ws, ".vtexec"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(s.ws, ".vtexec", "policy.toml"), []byte(tc.project), 0o644))
			}
			res, got := s.runLine(t, "", "perl plant.pl")
			for _, n := range []string{".envrc", ".mcp.json", ".gitattributes"} {
				data, err := os.ReadFile(filepath.Join(s.ws, n))
				if tc.kept {
					require.NoError(t, err, "%s", res.Stdout+res.Stderr)
					assert.Equal(t, "denied", got[n])
					assert.Empty(t, data, "%s is an empty placeholder", n)
					assert.Contains(t, string(res.Confinement), filepath.Join(s.ws, n), "reported as protected")
				} else {
					// Made during the run, moved out of the workspace after it.
					assert.Equal(t, "ok", got[n], "the probe works")
					assert.True(t, os.IsNotExist(err), "%s outlived the run", n)
					assert.Contains(t, res.Disarmed, filepath.Join(s.ws, n))
				}
			}
		})
	}
}
