package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// openRedirect opens the file of a checked redirect, its directory
// resolved and checked again just before: on Windows the check and the
// open are a moment apart, and there is no kernel box.
func openRedirect(rd plan.Redirect, ws *workspace.Workspace) (*os.File, error) {
	flags, err := openFlags(rd)
	if err != nil {
		return nil, err
	}
	if rd.Path == os.DevNull {
		return os.OpenFile(rd.Path, flags, 0o644)
	}
	if ws == nil {
		return nil, errors.New("no workspace to check the redirect against")
	}
	dir, name := filepath.Split(rd.Path)
	if name == "" || name == "." || name == ".." {
		return nil, errors.New("not a file name")
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, redirectError(rd.Path, err)
	}
	access := workspace.Write
	if rd.Kind == plan.Read {
		access = workspace.Read
	}
	p := filepath.Join(real, name)
	if err := ws.CheckReal(p, access); err != nil {
		return nil, redirectError(rd.Path, fmt.Errorf("the directory now resolves to %s: %w", real, err))
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s: is a symbolic link; redirects do not follow symlinks", rd.Path)
	}
	f, err := os.OpenFile(p, flags, 0o644)
	if err != nil {
		return nil, redirectError(rd.Path, err)
	}
	return f, nil
}

// inputFile is a file that reads as data: a temporary file (Windows
// cannot remove a file still open; it stays in the temporary directory).
func inputFile(data string) (*os.File, error) {
	f, err := os.CreateTemp("", "vtexec-here-document-")
	if err != nil {
		return nil, fmt.Errorf("here-document: %w", err)
	}
	return fillInput(f, data)
}
