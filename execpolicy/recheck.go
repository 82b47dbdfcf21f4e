package execpolicy

import (
	"errors"
	"path/filepath"
	"slices"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// CodeChanged is the code of a command that needs a person's approval for
// something the check before the run did not find.
const CodeChanged = codes.ChangedSinceCheck

// Recheck checks one planned command again against the tree as it is now,
// just before it runs. A list is checked as a whole before anything runs,
// so an earlier step (cp -P, mv) may have put a symbolic link where a
// later step's path did not exist yet. The working directory, every
// redirect and every operand are resolved again and the validators run
// again; the result may not be stricter than the check was: a refusal
// refuses, and an approval needed for something new refuses too. ws is
// the workspace at the run's current directory; it is not changed.
func (c *Checker) Recheck(cmd plan.Cmd, ws *workspace.Workspace) *Verdict {
	w := ws.Clone()
	if err := w.Chdir(cmd.Dir); err != nil {
		return pathVerdict("working directory", cmd.Dir, err)
	}
	if cmd.Builtin == "cd" {
		// A directory that leads outside now stops the run; one that is
		// missing is left to cd, which fails as in the shell.
		var be *workspace.BoundaryError
		if err := w.Chdir(cmd.Argv[len(cmd.Argv)-1]); errors.As(err, &be) && be.Code != workspace.Invalid {
			return pathVerdict("cd", cmd.Argv[len(cmd.Argv)-1], err)
		}
		return nil
	}
	for _, r := range cmd.Redirects {
		if r.Kind == plan.Dup || r.Kind == plan.Input {
			continue
		}
		if _, v := redirectPath(r.Path, r.Kind, w); v != nil {
			return v
		}
	}
	if cmd.Builtin != "" {
		return nil // : exit command -v type: only their redirects touch files
	}
	if slices.Contains(cmd.Asks, CodeWorkspaceProgram) {
		// Approved as the workspace's own program: it must still be that
		// file, inside the workspace; it runs confined.
		if prog, ok := workspaceProgram(cmd.Argv[0], w); !ok || prog != cmd.Program {
			return deny(CodeChanged, "run the command again, so it is checked and asked about anew",
				"%s is no longer the program in the workspace that was approved", cmd.Argv[0])
		}
		return nil
	}
	prog, v := c.program(cmd.Argv[0], w)
	if v != nil {
		return v
	}
	if prog.Path != cmd.Program {
		return deny(CodeNotAllowed, "run the command again", "%s now resolves to %s, not %s", cmd.Argv[0], prog.Path, cmd.Program)
	}
	var parts []Part
	c.validate(filepath.Base(cmd.Argv[0]), cmd.Argv, prog, w, 0, &parts)
	for _, p := range parts {
		switch {
		case p.Decision == Deny:
			return &Verdict{Decision: Deny, Code: p.Code, Reason: p.Reason, Hint: p.Hint}
		case p.Decision == Ask && !slices.Contains(cmd.Asks, p.Code):
			return deny(CodeChanged, "run the later part as a command of its own, so it is checked (and asked about) on its own",
				"%s now needs approval (%s: %s), which the check before the run did not find", filepath.Base(p.Argv[0]), p.Code, p.Reason)
		}
	}
	return nil
}
