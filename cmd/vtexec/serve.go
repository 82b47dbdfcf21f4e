package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/buildinfo"
	"github.com/vtexec/vtexec/internal/serveopts"
)

// serverName is the MCP server's program, installed beside vtexec. It is
// a program of its own so that vtexec, started for every check, run and
// hook, does not link (and initialise, ~0.6 ms a process) the MCP SDK
// and what it brings: HTTP, OAuth, TLS, JSON Schema.
const serverName = "vtexec-serve"

// cmdServe checks vtexec serve's flags, then becomes vtexec-serve with
// them: the server serves MCP on stdin and stdout until the client hangs
// up or a signal ends it.
func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := newFlags("serve")
	o := serveopts.Define(fs)
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := o.Validate(fs.Args()); err != nil {
		return 0, &usageError{err.Error()}
	}
	if err := o.CheckWorkspace(); err != nil {
		return 0, err
	}
	server, err := serverPath()
	if err != nil {
		return 0, err
	}
	if stdin != os.Stdin || stdout != os.Stdout {
		return 0, fmt.Errorf("vtexec serve serves on the process's own stdin and stdout")
	}
	return becomeServer(ctx, server, args)
}

// serverPath is vtexec-serve beside vtexec's own executable (its links
// resolved): the same installation, never one found on PATH.
func serverPath() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", fmt.Errorf("vtexec serve: where vtexec is installed: %w", err)
	}
	name := serverName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", &vtexec.RequestError{Code: codes.ServerMissing,
			Reason: fmt.Sprintf("vtexec serve runs the MCP server %s, installed beside vtexec, and it is not there", p),
			Hint:   "install both programs: " + buildinfo.InstallCommand()}
	}
	return p, nil
}

// serverEnv is vtexec's environment for the server, with vtexec's build
// in it: vtexec-serve refuses to serve for a vtexec of another build.
func serverEnv() []string {
	env := os.Environ()
	if id := buildinfo.Identity(); id != "" {
		env = append(env, buildinfo.CallerEnv+"="+id)
	}
	return env
}
