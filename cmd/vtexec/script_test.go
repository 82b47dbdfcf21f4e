package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the transcripts in testdata/script: what a user types
// and what vtexec answers, exit codes included, in a fresh workspace
// ($WORK) with state and configuration of its own.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			// Outside the workspace, as vtexec requires of its own files.
			outside := filepath.Join(filepath.Dir(env.WorkDir), filepath.Base(env.WorkDir)+"-xdg")
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(outside, "config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(outside, "state"))
			env.Setenv("CI", "true")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits N PROGRAM ARGS... runs the program and requires exit
			// status N; stdout and stderr are kept for the next lines.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits N PROGRAM [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("%v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
		},
	})
}
