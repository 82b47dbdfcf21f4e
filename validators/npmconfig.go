package validators

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/workspace"
)

// npm's configuration is part of npm ls: the project npm finds walking
// up from the working directory (the nearest directory with a
// package.json or node_modules — above the workspace too), the .npmrc
// there, whose keys can move where npm reads (prefix, userconfig,
// globalconfig, cache …), and the workspaces its package.json names.
// npmProjectInside refuses a project outside the workspace or a
// workspace entry that leads outside, and sends an .npmrc with any key
// but the ones known to change only how npm prints to a person
// (ErrUnlisted: npm ls then asks like any npm use).

// npmPrintKeys are .npmrc keys that only change how npm prints.
var npmPrintKeys = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"color": true, "unicode": true, "progress": true, "loglevel": true, "fund": true, "audit": true,
		"update-notifier": true, "json": true, "long": true, "parseable": true, "depth": true, "save-exact": true,
		"engine-strict": true, "package-lock": true, "save": true, "save-prefix": true, "legacy-peer-deps": true,
	}
})

func npmProjectInside(name string, ws *workspace.Workspace) error {
	project := ""
	for dir := ws.Cwd(); ; dir = filepath.Dir(dir) {
		for _, marker := range []string{"package.json", "node_modules"} {
			if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil && project == "" {
				project = dir
			}
		}
		if project != "" || filepath.Dir(dir) == dir {
			break
		}
	}
	if project == "" {
		return nil // npm works in the working directory itself
	}
	if !insideWorkspace(ws, project) {
		return refuse(string(workspace.Outside), "run npm ls in a project inside the workspace",
			"%s: npm would read the project at %s, outside the workspace", name, project)
	}
	if data, _, err := fsutil.ReadRegular(filepath.Join(project, ".npmrc"), maxGoFile, false); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
				continue
			}
			key, _, _ := strings.Cut(line, "=")
			if !npmPrintKeys()[strings.TrimSpace(key)] {
				return ErrUnlisted // it may move where npm reads: a person decides
			}
		}
	} else if _, lerr := os.Lstat(filepath.Join(project, ".npmrc")); lerr == nil {
		return ErrUnlisted // there, but not a file vtexec reads
	}
	data, _, err := fsutil.ReadRegular(filepath.Join(project, "package.json"), maxGoFile, false)
	if err != nil {
		return nil
	}
	var pkg struct {
		Workspaces json.RawMessage `json:"workspaces"`
	}
	if json.Unmarshal(data, &pkg) != nil || len(pkg.Workspaces) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(pkg.Workspaces, &list) != nil {
		var obj struct {
			Packages []string `json:"packages"`
		}
		if json.Unmarshal(pkg.Workspaces, &obj) != nil {
			return ErrUnlisted
		}
		list = obj.Packages
	}
	for _, w := range list {
		if filepath.IsAbs(w) || strings.Contains(w, "..") {
			return refuse(string(workspace.Outside), "keep the npm workspaces inside the workspace",
				"%s: package.json names the npm workspace %q, which may lead outside the workspace", name, w)
		}
		// The fixed part before any pattern must not lead outside
		// through a link.
		fixed := w
		if i := strings.IndexAny(fixed, "*?[{"); i >= 0 {
			fixed = filepath.Dir(fixed[:i+1])
		}
		if fixed != "." && fixed != "" {
			if p := filepath.Join(project, fixed); !insideWorkspace(ws, p) {
				if _, err := os.Lstat(p); err == nil {
					return refuse(string(workspace.Outside), "keep the npm workspaces inside the workspace",
						"%s: the npm workspace %q leads outside the workspace", name, w)
				}
			}
		}
	}
	return nil
}
