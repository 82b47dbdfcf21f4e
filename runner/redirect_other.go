//go:build !linux && !windows

package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// openBeneath opens rd.Path's name inside its directory, resolved and
// checked just before. Without /proc to ask where an open directory is,
// the check and the open are a moment apart; there is no kernel box on
// these platforms either.
func openBeneath(rd plan.Redirect, ws *workspace.Workspace, flags int) (int, error) {
	if ws == nil {
		return -1, errors.New("no workspace to check the redirect against")
	}
	dir, name := filepath.Split(rd.Path)
	if name == "" || name == "." || name == ".." {
		return -1, errors.New("not a file name")
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return -1, err
	}
	access := workspace.Write
	if rd.Kind == plan.Read {
		access = workspace.Read
	}
	if err := ws.CheckReal(filepath.Join(real, name), access); err != nil {
		return -1, fmt.Errorf("the directory now resolves to %s: %w", real, err)
	}
	dfd, err := openRetry(unix.AT_FDCWD, real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return -1, err
	}
	defer unix.Close(dfd)
	return openRetry(dfd, name, flags)
}

// inputFile is a file that reads as data: a temporary file, removed at
// once, so a here-document needs no writer running beside the command.
func inputFile(data string) (*os.File, error) {
	f, err := os.CreateTemp("", "vtexec-here-document-")
	if err != nil {
		return nil, fmt.Errorf("here-document: %w", err)
	}
	os.Remove(f.Name())
	return fillInput(f, data)
}
