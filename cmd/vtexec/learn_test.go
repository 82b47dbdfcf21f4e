package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A CLI people can learn: a version, help for each subcommand that names
// every flag (exit 0), and mistakes that say what to do.
func TestVersionAndHelp(t *testing.T) {
	code, out, _ := cli(t, "", "--version")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "vtexec ")
	for _, sub := range []string{"check", "run", "serve"} {
		code, out, _ := cli(t, "", sub, "--help")
		assert.Equal(t, 0, code, sub)
		assert.Contains(t, out, "usage: vtexec "+sub, sub)
		assert.Contains(t, out, "-workspace", sub)
	}
	for _, args := range [][]string{
		{"policy", "--help"}, {"policy", "allow", "--help"}, {"hook", "--help"}, {"hook", "install", "--help"},
	} {
		code, out, _ := cli(t, "", args...)
		assert.Equal(t, 0, code, "%q", args)
		assert.Contains(t, out, "usage: vtexec "+args[0], "%q", args)
		assert.Contains(t, out, "-", "%q", args)
	}
	_, out, _ = cli(t, "", "policy", "-h")
	assert.Contains(t, out, "vtexec policy allow")
	_, out, _ = cli(t, "", "hook", "-h")
	assert.Contains(t, out, "-no-rewrite")
	_, out, _ = cli(t, "", "run", "-h")
	for _, flag := range []string{"-timeout", "-max-output", "-confinement", "-session", "-cwd", "-json", "-audit"} {
		assert.Contains(t, out, flag)
	}
}

func TestFlagAfterTheCommandIsAnError(t *testing.T) {
	ws := cliWorkspace(t)
	for _, args := range [][]string{
		{"run", "--workspace", ws, "ls", "--json"},
		{"check", "--workspace", ws, "ls", "--json"},
		{"run", "--workspace", ws, "ls", "--timeout=5s"},
	} {
		code, stdout, stderr := cli(t, "", args...)
		assert.Equal(t, exitUsage, code, "%q", args)
		// With --json among the words, the error is JSON on stdout.
		assert.Contains(t, stdout+stderr, "comes after the command", "%q", args)
	}
	// After --, the same words are the command's own.
	code, _, _ := cli(t, "", "check", "--workspace", ws, "--", "ls", "--json")
	assert.NotEqual(t, exitUsage, code)
}

func TestDurationWithoutAUnitSaysSo(t *testing.T) {
	code, _, stderr := cli(t, "", "run", "--timeout", "5", "--", "ls")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "with a unit, e.g. 5s")
}
