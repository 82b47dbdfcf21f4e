package execpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

// A pattern the shell library translates into no regular expression
// ([N-\*]: a range whose end is an escaped or quoted character) is
// refused wherever it is written, before anything expands it; expanding
// it would panic.
func TestUnreadablePatternsAreRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	ws, err := workspace.New(dir)
	require.NoError(t, err)
	for _, src := range []string{
		`ls [N-\*]`, `ls [N\-\*]`, `ls [N'-*']`, `ls [N-"*"]`, `[N'-*']`,
		`ls [!N-\*]`, `ls [^N-\*]`, `ls ?[N-\*]`, `ls d/[N-\*]/x`, `ls [N{-\*,a}]`,
		`p=x; ls [N'-*'] $p`, `for p in x; do ls [N'-*'] $p; done`, `p=x; ls $p | cat [N'-*']`,
		`case x in [N'-*']) ls;; esac`,
		`p='[N-\*]'; ls $p`, `for p in a '[N-\*]'; do ls $p | cat; done`,
		// The fuzzer's first find.
		`''[N'-*']''''`,
	} {
		v := Check(src, ws)
		require.NotNil(t, v, src)
		assert.Equal(t, Deny, v.Decision, src)
		assert.Equal(t, CodeParse, v.Code, src)
		assert.Contains(t, v.Reason, "cannot be read", src)
	}
	for _, src := range []string{`ls [a-z]*`, `ls '[N-*]'`, `ls [N-\]]`, `ls [[:alpha:]-\*]`, `cat [a]'.txt'`} {
		v := Check(src, ws)
		assert.False(t, v.Decision == Deny && strings.Contains(v.Reason, "cannot be read"), "%s: %s %s", src, v.Code, v.Reason)
	}
}

// What slips past the written-out check still does not panic: the
// checker's expansion turns the library's panic on a pattern into a
// refusal, and lets any other panic go on.
func TestRecoverPatternTakesOnlyThePatternPanic(t *testing.T) {
	refused := func(p any) (v *Verdict) {
		defer recoverPattern(&v)
		panic(p)
	}
	v := refused("regexp: Compile(`(?s)^[N-\\*]$`): error parsing regexp: invalid character class range: `N-\\*`")
	require.NotNil(t, v)
	assert.Equal(t, CodeParse, v.Code)
	assert.Contains(t, v.Reason, "cannot be read")
	assert.Panics(t, func() { refused("index out of range") })
}

// The pattern checks run on every line of a stream, on all its workers
// at once: nothing they ask the shell library may share state between
// calls (its expansion with no config writes to one kept for all; the
// race detector sees it, and an interleaving tore its environment and
// ended a stream).
func TestUnreadablePatternChecksRunConcurrently(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	require.NoError(t, err)
	lines := []string{`p='[a-z]'; ls $p`, `for p in a '[b]'; do ls $p; done`, `ls [a-z]*`, `ls [N-\*]`, `x=[q] ls`}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				src := lines[(g+i)%len(lines)]
				require.NotNil(t, Check(src, ws), src)
			}
		}()
	}
	wg.Wait()
}

// A fault of the checker's own refuses that one command, with its own
// code, and the next check goes on: a stream or a server is not ended.
func TestCheckerFaultRefusesOnlyItsCommand(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	require.NoError(t, err)
	checkFault = func(src string) {
		if src == "ls faulty" {
			var m map[string]int
			m["x"]++ // a nil map: a runtime panic
		}
	}
	t.Cleanup(func() { checkFault = nil })
	v := Check("ls faulty", ws)
	require.NotNil(t, v)
	assert.Equal(t, Deny, v.Decision)
	assert.Equal(t, CodeCheckFailed, v.Code)
	assert.Contains(t, v.Reason, "nil map")
	assert.NotEmpty(t, v.Hint)
	assert.Equal(t, Allow, Check("ls", ws).Decision)
}

// A program the trusted PATH lacks is refused with where the user's own
// PATH has it, if it does: the hint names the directory to add.
func TestMissingProgramHintNamesTheUsersDirectory(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	require.NoError(t, err)
	own := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(own, "mytool"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", "/usr/bin:/bin:"+own)
	c := Checker{TrustedPath: "/usr/bin:/bin"}
	v := c.Check("mytool --x", ws)
	require.Equal(t, Deny, v.Decision, v.Reason)
	assert.Equal(t, CodeNotAllowed, v.Code)
	assert.Contains(t, v.Hint, "mytool is in "+own+", which is not on the trusted PATH")
	v = c.Check("nosuchtool-vtexec", ws)
	assert.Equal(t, CodeNotAllowed, v.Code)
	assert.Equal(t, "use a program installed on the system PATH", v.Hint)
	// On the trusted PATH too, the directory is not the user's own: the
	// program is not there (a file that is not executable).
	require.NoError(t, os.Chmod(filepath.Join(own, "mytool"), 0o644))
	c = Checker{TrustedPath: "/usr/bin:/bin:" + own}
	v = c.Check("mytool --x", ws)
	assert.Equal(t, "use a program installed on the system PATH", v.Hint, v.Reason)
}
