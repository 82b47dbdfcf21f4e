package workspace

import "fmt"

// Code is a stable identifier for why a path was refused.
type Code string

const (
	// Outside means the path resolves outside the workspace root.
	Outside Code = "outside_workspace"
	// Protected means the path is inside the root but may not be written.
	Protected Code = "protected_path"
	// Invalid means the path cannot be resolved safely: empty, a NUL byte,
	// too long, a symlink loop, or ".." after a missing directory.
	Invalid Code = "bad_path"
	// AskFirst means a write to the path needs a person's approval: it is
	// agent or editor configuration (see DefaultAskNames).
	AskFirst Code = "agent_config"
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
func (e *BoundaryError) Hint() string {
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
