package validators

import (
	"path/filepath"

	"github.com/vtexec/vtexec/workspace"
)

// resolveBoth confines rel, taken from base, in both readings a program
// may give it: the lexical one, where ".." removes the name before it as
// text (git normalises pathspecs and the paths in its own files so,
// before it touches the file system), and the physical one, where every
// link on the way is followed first (the kernel's). Both must land
// inside; the physical real path is returned. rel may be absolute; base
// must be.
func resolveBoth(ws *workspace.Workspace, base, rel string, access workspace.Access) (string, error) {
	lexical, physical := rel, rel
	if !filepath.IsAbs(rel) {
		lexical = filepath.Join(base, rel)
		physical = base + "/" + rel
		if real, err := workspace.Real(base); err == nil {
			// Never join onto a base that is itself a link.
			physical = real + "/" + rel
		}
	} else {
		lexical = filepath.Clean(rel)
	}
	if _, err := ws.Resolve(lexical, access); err != nil {
		return "", err
	}
	return ws.Resolve(physical, access)
}
