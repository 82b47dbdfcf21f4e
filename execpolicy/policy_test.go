package execpolicy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writePolicy(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.toml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestPolicyErrorsNameFileAndLine(t *testing.T) {
	cases := map[string]struct {
		body string
		line int
		want string
	}{
		"syntax":      {"[[rule]]\nprogram = \"make\"\ndecision = allow\n", 3, ""},
		"unknown key": {"# comment\n[[rule]]\nprogram = \"make\"\ndecison = \"allow\"\n", 4, "unknown key rule.decison"},
		"bad decision": {"[[rule]]\nprogram = \"make\"\ndecision = \"allow\"\n\n[[rule]]\nprogram = \"go\"\ndecision = \"maybe\"\n",
			5, "decision \"maybe\""},
		"bad example": {"[[rule]]\nprogram = \"make\"\nsubcommand = [\"test\"]\ndecision = \"allow\"\nmatch = [\"make clean\"]\n",
			1, "does not match"},
		"bad not_match": {"\n\n[[rule]]\nprogram = \"make\"\ndecision = \"deny\"\nnot_match = [\"make clean\"]\n",
			3, "matches the rule"},
		"bad root":    {"[[root]]\npath = \"relative\"\naccess = \"read-only\"\n", 1, "absolute path"},
		"bad timeout": {"[limits]\ntimeout = \"soon\"\n", 1, "not a duration"},
		"both forms":  {"[[rule]]\nprogram = \"make\"\nsubcommand = [\"a\"]\nargv = [\"a\"]\ndecision = \"allow\"\n", 1, "not both"},
		"no program":  {"[[rule]]\ndecision = \"allow\"\n", 1, "needs a program"},
	}
	// A rule that names its program but does not load is kept apart
	// (Broken): its program's commands are refused, others decided.
	broken := map[string]bool{"bad decision": true, "bad example": true, "bad not_match": true, "both forms": true}
	for name, tc := range cases {
		p := writePolicy(t, tc.body)
		pol, err := LoadPolicy(Layer{Path: p, Trusted: true})
		var pe *PolicyError
		if broken[name] {
			require.NoError(t, err, name)
			require.Len(t, pol.Broken, 1, name)
			pe = pol.Broken[0].Err
		} else {
			require.True(t, errors.As(err, &pe), "%s: %v", name, err)
		}
		assert.Equal(t, p, pe.File, name)
		assert.Equal(t, tc.line, pe.Line, "%s: %v", name, err)
		assert.Contains(t, pe.Error(), fmt.Sprintf("%s:%d:", p, tc.line), name)
		assert.Contains(t, pe.Problem, tc.want, name)
	}
}

func TestPolicyLayersAndTrust(t *testing.T) {
	user := writePolicy(t, "[[rule]]\nprogram = \"make\"\nsubcommand = [\"test\"]\ndecision = \"allow\"\nmatch = [\"make test -j4\"]\nnot_match = [\"make clean\", \"make\"]\n")
	project := writePolicy(t, "[[rule]]\nprogram = \"python3\"\ndecision = \"allow\"\n\n[[rule]]\nprogram = \"make\"\nsubcommand = [\"deploy\"]\ndecision = \"deny\"\nreason = \"never from an agent\"\n\n[limits]\ntimeout = \"5m\"\n")
	pol, err := LoadPolicy(Layer{Path: user, Trusted: true}, Layer{Path: project, Trusted: false}, Layer{Path: "/nonexistent/x.toml"})
	require.NoError(t, err)
	assert.Equal(t, []string{user, project}, pol.Files)
	require.Len(t, pol.Rules, 2, "an untrusted file's allow rule is ignored")
	require.Len(t, pol.Ignored, 1)
	assert.Equal(t, "python3", pol.Ignored[0].Program)
	assert.Zero(t, pol.Timeout, "an untrusted file may not raise limits")

	pol, err = LoadPolicy(Layer{Path: user, Trusted: true}, Layer{Path: project, Trusted: true})
	require.NoError(t, err)
	assert.Len(t, pol.Rules, 3)
	assert.Equal(t, "5m0s", pol.Timeout.String())
}

// Only the user's own policy opts in to macOS's untested Seatbelt
// profile: a project's file cannot change what a box is made of.
func TestSeatbeltIsTheUsersChoice(t *testing.T) {
	file := writePolicy(t, "seatbelt = true\n")
	pol, err := LoadPolicy(Layer{Path: file, Trusted: false})
	require.NoError(t, err)
	assert.False(t, pol.Seatbelt, "from a project's file")
	pol, err = LoadPolicy(Layer{Path: file, Trusted: true})
	require.NoError(t, err)
	assert.True(t, pol.Seatbelt, "from the user's")
}

func TestApplyStrictestWins(t *testing.T) {
	ws := testWorkspace(t)
	pol := &Policy{Rules: []PolicyRule{
		{Program: "make", Subcommand: []string{"test"}, Decision: RuleAllow, File: "p", Line: 1},
		{Program: "make", Subcommand: []string{"deploy"}, Decision: RuleDeny, File: "p", Line: 5},
		{Program: "cat", Decision: RuleAsk, File: "p", Line: 9},
		{Program: "python3", Decision: RuleAllow, File: "p", Line: 12},
	}}
	c := standinChecker(t, "make", "python3")
	decide := func(src string) *Decided { return pol.Apply(c.Check(src, ws), nil) }

	d := decide("make test")
	assert.Equal(t, Allow, d.Decision)
	assert.Equal(t, 1, d.DecidingRule().Line)
	assert.Equal(t, Ask, decide("make clean").Decision, "no rule: still asks")
	d = decide("make test && make deploy")
	assert.Equal(t, Deny, d.Decision)
	assert.Equal(t, CodePolicyDeny, d.Code)
	assert.Contains(t, d.Reason, "p:5")
	assert.Equal(t, Ask, decide("cat src/a.txt").Decision)
	assert.Equal(t, CodePolicyAsk, decide("cat src/a.txt").Code)
	assert.Equal(t, Deny, decide("cat /etc/passwd").Decision, "an ask rule never softens a deny")
	assert.Equal(t, Deny, decide("make test -f /tmp/Makefile").Decision, "an allow rule never approves a refused flag")
	assert.Equal(t, Allow, decide("python3 x.py").Decision)
	assert.Equal(t, Ask, decide("python3 -c 'print(1)'").Decision, "inline code is not liftable by a file rule")
	session := []PolicyRule{{Program: "python3", Decision: RuleAllow, File: "session"}}
	assert.Equal(t, Allow, pol.Apply(c.Check("python3 -c 'print(1)'", ws), session).Decision, "a session approval lifts it")
}

func TestRuleFor(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "script.py"), nil, 0o644))
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"go", "test", "./..."}, "allow /x/go test"},
		{[]string{"npm", "run", "build", "--", "--prod"}, "allow /x/npm run build -- --prod (while its script is unchanged)"},
		{[]string{"make", "--version"}, "allow /x/make --version (while its script is unchanged)"},
		{[]string{"make"}, "allow /x/make (while its script is unchanged)"},
		{[]string{"python3", "script.py"}, "allow /x/python3 script.py"},
		{[]string{"git", "commit", "-m", "x"}, "allow /x/git commit -m"},
	}
	for _, tc := range cases {
		p := Part{Argv: tc.argv, Program: "/x/" + tc.argv[0], Dir: dir}
		r := RuleFor(p, dir)
		assert.Equal(t, tc.want, r.String(), "%q", tc.argv)
		assert.True(t, r.Matches(p))
	}
	r := RuleFor(Part{Argv: []string{"make", "--version"}, Program: "/x/make"}, dir)
	assert.False(t, r.Matches(Part{Argv: []string{"make", "clean"}, Program: "/x/make", Dir: dir}), "make --version approves make --version only")
}

func TestAppendRuleKeepsTextAndDedups(t *testing.T) {
	p := writePolicy(t, "# my rules\n[[rule]]\nprogram = \"make\" # inline comment\ndecision = \"ask\"\n")
	r := PolicyRule{Program: "/usr/bin/go", Subcommand: []string{"test"}, Decision: RuleAllow}
	added, err := AppendRule(p, r, "approved for a test")
	require.NoError(t, err)
	assert.True(t, added)
	added, err = AppendRule(p, r, "again")
	require.NoError(t, err)
	assert.False(t, added, "an equal rule is not added twice")
	data, _ := os.ReadFile(p)
	assert.True(t, strings.HasPrefix(string(data), "# my rules\n[[rule]]\nprogram = \"make\" # inline comment\n"), string(data))
	assert.Equal(t, 1, strings.Count(string(data), "approved for a test"))
	pol, err := LoadPolicy(Layer{Path: p, Trusted: true})
	require.NoError(t, err)
	require.Len(t, pol.Rules, 2)
	assert.Equal(t, r.String(), pol.Rules[1].String())

	bad := writePolicy(t, "[[rule]\n")
	_, err = AppendRule(bad, r, "")
	assert.Error(t, err, "a file that does not parse is left alone")
	data, _ = os.ReadFile(bad)
	assert.Equal(t, "[[rule]\n", string(data))
}

func TestAppendRuleConcurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".vtexec", "policy.local.toml")
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := AppendRule(p, PolicyRule{Program: "/usr/bin/make", Subcommand: []string{fmt.Sprintf("t%d", i)}, Decision: RuleAllow}, "")
			assert.NoError(t, err)
		}(i)
	}
	wg.Wait()
	pol, err := LoadPolicy(Layer{Path: p, Trusted: true})
	require.NoError(t, err)
	assert.Len(t, pol.Rules, 20)
}

func TestTrustStore(t *testing.T) {
	dir := t.TempDir()
	ts := TrustStore{Path: filepath.Join(dir, "state", "trusted.json")}
	f := writePolicy(t, "[[rule]]\nprogram = \"make\"\ndecision = \"allow\"\n")
	ok, err := ts.Trusted(f)
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, ts.Trust(f))
	ok, _ = ts.Trusted(f)
	assert.True(t, ok)
	require.NoError(t, os.WriteFile(f, []byte("[[rule]]\nprogram = \"rm\"\ndecision = \"allow\"\n"), 0o644))
	ok, _ = ts.Trusted(f)
	assert.False(t, ok, "a changed file is untrusted again")
	ok, _ = ts.Trusted(filepath.Join(dir, "missing.toml"))
	assert.True(t, ok)
}

// A policy file a repository ships is parsed within bounds of memory and
// time, not only of size: 1 MiB of nested arrays is refused before the
// TOML decoder builds it.
func TestDeepPolicyIsRefusedCheaply(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"deep.toml":   "protect = " + strings.Repeat("[", 500000) + strings.Repeat("]", 500000) + "\n",
		"wide.toml":   "protect = [" + strings.Repeat("[],", 330000) + "]\n",
		"tables.toml": strings.Repeat("[[rule]]\nprogram = \"ls\"\ndecision = \"allow\"\n", 25000),
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := LoadPolicy(Layer{Path: path, Trusted: true})
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		var pe *PolicyError
		require.ErrorAs(t, err, &pe, name)
		assert.Contains(t, pe.Problem, "more", name)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: refused after %v, %d MB allocated", name, took, allocated>>20)
		assert.Less(t, allocated, uint64(64<<20), "%s: the refusal allocated %d MB", name, allocated>>20)
	}
}
