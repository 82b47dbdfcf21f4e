package validators

import (
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"

	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/workspace"
)

// The go command's configuration is part of its command: the go.work and
// go.mod it finds walking up from the working directory — above the
// workspace too — name directories it then reads (use, replace with a
// local path). goModulesInside finds them as go does and refuses any
// that lies outside the workspace, so that an allowed go list or go doc
// reads only the workspace, box or no box. They are parsed in-process
// with golang.org/x/mod/modfile, the go command's own parser; nothing is
// run.

// maxGoFile bounds a go.mod or go.work vtexec reads.
const maxGoFile = 1 << 20

// goModulesInside refuses a go.work or go.mod that go would use from the
// working directory when it, or a directory it names, lies outside the
// workspace. GOWORK and GOFLAGS cannot be set by a command (vtexec fixes
// the environment), so go finds them only by walking up.
func goModulesInside(name string, ws *workspace.Workspace) error {
	refuseOutside := func(file, what, dir string) error {
		return refuse(string(workspace.Outside), "keep the modules go reads inside the workspace, or have a person run it outside vtexec",
			"%s: %s %s names %s, outside the workspace, which go would read", name, file, what, dir)
	}
	for _, f := range []string{"go.work", "go.mod"} {
		path := findUp(ws.Cwd(), f)
		if path == "" {
			continue
		}
		if !insideWorkspace(ws, path) {
			return refuse(string(workspace.Outside), "work in a module inside the workspace, or have a person run it outside vtexec",
				"%s: go would use %s, outside the workspace", name, path)
		}
		data, _, err := fsutil.ReadRegular(path, maxGoFile, false)
		if err != nil {
			return refuse(CodeBadUsage, "fix or remove "+f, "%s: %s: %v", name, path, err)
		}
		var dirs []struct{ what, dir string }
		if f == "go.work" {
			wf, err := modfile.ParseWork(path, data, nil)
			if err != nil {
				return refuse(CodeBadUsage, "fix "+f, "%s: %v", name, err)
			}
			for _, u := range wf.Use {
				dirs = append(dirs, struct{ what, dir string }{"use", u.Path})
			}
			for _, r := range wf.Replace {
				if modfile.IsDirectoryPath(r.New.Path) {
					dirs = append(dirs, struct{ what, dir string }{"replace " + r.Old.Path + " =>", r.New.Path})
				}
			}
		} else {
			mf, err := modfile.Parse(path, data, nil)
			if err != nil {
				return refuse(CodeBadUsage, "fix "+f, "%s: %v", name, err)
			}
			for _, r := range mf.Replace {
				if modfile.IsDirectoryPath(r.New.Path) {
					dirs = append(dirs, struct{ what, dir string }{"replace " + r.Old.Path + " =>", r.New.Path})
				}
			}
		}
		for _, d := range dirs {
			p := d.dir
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			if !insideWorkspace(ws, p) {
				return refuseOutside(path, d.what, d.dir)
			}
		}
		if f == "go.work" {
			return nil // with a go.work, go reads the go.mod files it uses
		}
	}
	return nil
}

// findUp is the first dir/name from dir up to the root, or "".
func findUp(dir, name string) string {
	for {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// insideWorkspace reports whether p, its links followed as far as they
// lead, lies in the workspace.
func insideWorkspace(ws *workspace.Workspace, p string) bool {
	real, err := ws.Resolve(p, workspace.Read)
	return err == nil && ws.Contains(real)
}
