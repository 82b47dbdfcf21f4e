package validators

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What vtexec knows of a program lives here, in its registration and its
// profile: no other package compares a command's name with a program's
// (==, !=, a case) or keys a set of programs by name. The runner, which
// carries out vtexec's own builtins, names those builtins.
func TestNoProgramNamesOutsideTheRegistry(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
	}
	for n := range profiles() {
		names[n] = true
	}
	// A comparison about a command's words or program, or a case of a
	// switch on them.
	aboutCommand := `(?:argv|Argv|Program|filepath\.Base\(|\.Lit\(\))`
	compare := regexp.MustCompile(aboutCommand + `[^"\n]*(?:==|!=)\s*"([^"]+)"`)
	switchOnCommand := regexp.MustCompile(`\bswitch\b.*` + aboutCommand)
	caseLabels := regexp.MustCompile(`^\s*case\s+((?:"[^"]+",?\s*)+):`)
	setKey := regexp.MustCompile(`"([^"]+)":\s*true`)
	require.NoError(t, filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(p)
		if d.IsDir() {
			switch {
			case rel == "../validators", strings.HasPrefix(rel, "../tests"), d.Name() == "testdata", strings.HasPrefix(d.Name(), ".") && rel != "..":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		// The runner carries out vtexec's builtins: their names are its own.
		counts := func(name string) bool {
			return names[name] && !(strings.HasPrefix(rel, "../runner/") && builtinProfiles[name].ProgramLookup != nil)
		}
		onCommand := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "switch ") {
				onCommand = switchOnCommand.MatchString(line)
			}
			var found []string
			for _, m := range compare.FindAllStringSubmatch(line, -1) {
				found = append(found, m[1])
			}
			if m := caseLabels.FindStringSubmatch(line); m != nil && onCommand {
				for _, q := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(m[1], -1) {
					found = append(found, q[1])
				}
			}
			keys := 0
			for _, m := range setKey.FindAllStringSubmatch(line, -1) {
				if counts(m[1]) {
					keys++
				}
			}
			if keys >= 2 {
				found = append(found, "a set of programs")
			}
			for _, name := range found {
				if name == "a set of programs" || counts(name) {
					assert.Fail(t, "a program's name outside the registry", "%s:%d: %s (give the program a trait in its profile)", rel, i+1, strings.TrimSpace(line))
				}
			}
		}
		return nil
	}))
}

func TestProfiles(t *testing.T) {
	assert.True(t, ProfileOf("git").WritesGitDir)
	assert.Equal(t, []string{"status"}, ProfileOf("git").SubcommandArgs([]string{"-C", "x", "status"}))
	assert.Nil(t, ProfileOf("ls").SubcommandArgs)
	assert.Equal(t, "command -v", ProfileOf("command").ProgramLookup([]string{"command", "-v", "ls"}))
	assert.Equal(t, "", ProfileOf("command").ProgramLookup([]string{"command", "ls"}))
	inner, err := ProfileOf("command").Unwrap([]string{"command", "-p", "ls", "-l"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ls", "-l"}, inner)
	_, err = ProfileOf("command").Unwrap([]string{"command", "-x", "ls"})
	assert.Error(t, err)
	assert.True(t, ProfileOf("timeout").LeavesProcessGroup([]string{"timeout", "5", "ls"}))
	assert.False(t, ProfileOf("timeout").LeavesProcessGroup([]string{"timeout", "--foreground", "5", "ls"}))
	assert.True(t, ProfileOf("cat").ReadsInputAsData && ProfileOf("cat").CopiesInput)
	assert.False(t, ProfileOf("python3").ReadsInputAsData)
	assert.True(t, ProfileOf("python").RunsInputAsProgram)
	assert.False(t, ProfileOf("cat").RunsInputAsProgram)
	assert.Equal(t, Profile{}.WritesGitDir, ProfileOf("no-such-program").WritesGitDir)
}
