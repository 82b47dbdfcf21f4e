//go:build linux

package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// openBeneath opens rd.Path's name inside its directory, pinned and
// checked as described at openRedirect.
func openBeneath(rd plan.Redirect, ws *workspace.Workspace, flags int) (int, error) {
	if ws == nil {
		return -1, errors.New("no workspace to check the redirect against")
	}
	dir, name := filepath.Split(rd.Path)
	if name == "" || name == "." || name == ".." {
		return -1, errors.New("not a file name")
	}
	dfd, err := openRetry(unix.AT_FDCWD, dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return -1, err
	}
	defer unix.Close(dfd)
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(dfd))
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
	return openRetry(dfd, name, flags)
}

// inputFile is a file that reads as data: an anonymous memory file, so a
// here-document needs no writer running beside the command and leaves
// nothing on disk.
func inputFile(data string) (*os.File, error) {
	fd, err := unix.MemfdCreate("vtexec-here-document", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("here-document: %w", err)
	}
	return fillInput(os.NewFile(uintptr(fd), "here-document"), data)
}
