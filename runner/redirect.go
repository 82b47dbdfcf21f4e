package runner

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// applyRedirects applies rs in order to a command's stdin, stdout and stderr
// in base, as bash does, and returns the resulting files and the files it
// opened, which the caller closes once the command has started. On error it
// closes what it opened and the command must not run.
func applyRedirects(base [3]*os.File, rs []plan.Redirect, ws *workspace.Workspace) ([3]*os.File, []*os.File, error) {
	fds := base
	var opened []*os.File
	for _, rd := range rs {
		if !stdFd(rd.Fd) || (rd.Kind == plan.Dup && !stdFd(rd.DupFd)) {
			closeFiles(opened)
			return base, nil, fmt.Errorf("redirect %d: only fds 0, 1 and 2 can be redirected", rd.Fd)
		}
		if rd.Kind == plan.Dup {
			fds[rd.Fd] = fds[rd.DupFd]
			continue
		}
		open := openRedirect
		if rd.Kind == plan.Input {
			open = func(rd plan.Redirect, _ *workspace.Workspace) (*os.File, error) { return inputFile(rd.Data) }
		}
		f, err := open(rd, ws)
		if err != nil {
			closeFiles(opened)
			return base, nil, err
		}
		opened = append(opened, f)
		fds[rd.Fd] = f
	}
	return fds, opened, nil
}

// stdFd reports whether fd is stdin, stdout or stderr.
func stdFd(fd int) bool {
	return fd >= 0 && fd <= 2
}

// redirectError describes a failed open for the agent; ELOOP from
// O_NOFOLLOW means the path is a symlink, which redirects refuse.
func redirectError(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s: is a symbolic link; redirects do not follow symlinks", path)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// fillInput writes data into f, a fresh file, and rewinds it for the
// command to read; on error it closes f.
func fillInput(f *os.File, data string) (*os.File, error) {
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("here-document: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("here-document: %w", err)
	}
	return f, nil
}

// openFlags are the open(2) flags of a Write, Append or Read redirect.
func openFlags(rd plan.Redirect) (int, error) {
	switch rd.Kind {
	case plan.Write:
		return os.O_WRONLY | os.O_CREATE | os.O_TRUNC, nil
	case plan.Append:
		return os.O_WRONLY | os.O_CREATE | os.O_APPEND, nil
	case plan.Read:
		return os.O_RDONLY, nil
	}
	return 0, fmt.Errorf("redirect of fd %d: unknown kind %d", rd.Fd, rd.Kind)
}
