package workspace

import (
	"fmt"

	"github.com/vtexec/vtexec/codes"
)

// Code is a stable identifier for why a path was refused.
type Code string

const (
	// Outside means the path resolves outside the workspace root.
	Outside Code = codes.OutsideWorkspace
	// Protected means the path is inside the root but may not be written.
	Protected Code = codes.ProtectedPath
	// Invalid means the path cannot be resolved safely: empty, a NUL byte,
	// too long, a symlink loop, or ".." after a missing directory.
	Invalid Code = codes.BadPath
	// AskFirst means a write to the path needs a person's approval: it is
	// agent or editor configuration (see DefaultAskNames).
	AskFirst Code = codes.AgentConfig
)

// BoundaryError reports a path that may not be used.
type BoundaryError struct {
	Code     Code
	Path     string // the path as given
	Resolved string // what it resolved to, if resolution got that far
	Root     string // the workspace root
	Reason   string // why, for people
}

func (e *BoundaryError) Error() string {
	if e.Resolved != "" && e.Resolved != e.Path {
		return fmt.Sprintf("%q resolves to %q: %s", e.Path, e.Resolved, e.Reason)
	}
	return fmt.Sprintf("%q: %s", e.Path, e.Reason)
}

// Hint says what an agent can do instead.
// reasonReadOnlyRoot is why a write into a read-only extra root fails.
const reasonReadOnlyRoot = "path is in a read-only root"

func (e *BoundaryError) Hint() string {
	if e.Reason == reasonReadOnlyRoot {
		return "this directory is a read-only root of the workspace (a [[root]] with access = \"read-only\"): commands may read it, not change it; write inside the workspace, or, if commands should change it, set its access to \"read-write\" in the policy file that names it (vtexec policy list)"
	}
	switch e.Code {
	case Outside:
		return "use a path inside the workspace (relative to the current directory, under ./)"
	case Protected:
		return "this path is write-protected (.git internals, vtexec's own files); write somewhere else in the workspace"
	case AskFirst:
		return "a person must approve writing agent or editor configuration (once or for this session); write elsewhere if you can"
	default:
		return "use a plain relative path to an existing location inside the workspace"
	}
}
