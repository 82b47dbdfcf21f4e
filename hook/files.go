package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/workspace"
)

// arg is one path argument of a file tool: its name, how it is used, and
// whether it is a glob pattern (then its fixed leading directories are
// what is checked).
type arg struct {
	name   string
	access workspace.Access
	glob   bool
}

var (
	r, w = workspace.Read, workspace.Write
	// fileTools are the file tools each harness has and their path
	// arguments (Gemini's from its 0.61.0 tool declarations).
	fileTools = sync.OnceValue(func() map[Harness]map[string][]arg {
		return map[Harness]map[string][]arg{
			Claude: {
				"Read": {{"file_path", r, false}}, "Write": {{"file_path", w, false}},
				"Edit": {{"file_path", w, false}}, "MultiEdit": {{"file_path", w, false}},
				"NotebookEdit": {{"notebook_path", w, false}}, "NotebookRead": {{"notebook_path", r, false}},
				"Glob": {{"path", r, false}, {"pattern", r, true}}, "Grep": {{"path", r, false}},
				"LS": {{"path", r, false}},
				// A workflow may be read from a file.
				"Workflow": {{"scriptPath", r, false}},
			},
			Gemini: {
				"read_file": {{"file_path", r, false}}, "write_file": {{"file_path", w, false}},
				"replace": {{"file_path", w, false}}, "list_directory": {{"dir_path", r, false}},
				"read_many_files": {{"include", r, true}},
				"glob":            {{"dir_path", r, false}, {"pattern", r, true}},
				"grep_search":     {{"dir_path", r, false}},
				// The legacy name Gemini CLI still accepts for grep_search.
				"search_file_content": {{"dir_path", r, false}},
			},
			Codex: {"view_image": {{"path", r, false}}},
		}
	})
	// patchKeys are where Codex's apply_patch may carry the patch text
	// (0.169.0 sends it as "command").
	patchKeys = []string{"command", "input", "patch"}
)

// decideFiles confines the paths of a file tool.
func decideFiles(ev Event, ws *workspace.Workspace) Verdict {
	var uses []pathUse
	switch {
	case ev.Harness == Codex && (ev.ToolName == "apply_patch" || ev.ToolName == "ApplyPatch"):
		text := ""
		for _, k := range patchKeys {
			if s, ok := ev.str(k); ok && strings.Contains(s, "*** Begin Patch") {
				text = s
			}
		}
		if text == "" {
			return deny(codes.BadRequest, "the apply_patch call carries no patch (*** Begin Patch)", "send the patch as the tool's input")
		}
		paths, err := PatchPaths(text)
		if err != nil {
			return deny(string(workspace.Invalid), err.Error(), "write the patch with exact *** Add File: / Update File: / Delete File: / Move to: headers")
		}
		for _, p := range paths {
			uses = append(uses, pathUse{p, w})
		}
	default:
		args, ok := fileTools()[ev.Harness][ev.ToolName]
		if !ok {
			return Verdict{Kind: Pass}
		}
		for _, a := range args {
			vals, _ := ev.strs(a.name)
			for _, v := range vals {
				if a.glob {
					var err error
					if v, err = globDir(v); err != nil {
						return deny(string(workspace.Invalid), err.Error(), "start the pattern with the directory to search and use no .. in it")
					}
				}
				if v != "" {
					uses = append(uses, pathUse{v, a.access})
				}
			}
		}
	}
	if len(uses) == 0 {
		return Verdict{Kind: Pass}
	}
	if v, ok := addPolicyRoots(ws); !ok {
		return v
	}
	if ev.Cwd != "" {
		if err := ws.Chdir(ev.Cwd); err != nil {
			return boundary(err)
		}
	}
	for _, u := range uses {
		if strings.HasPrefix(u.path, "~") {
			// A harness may expand ~ itself; name the place plainly.
			return deny(string(workspace.Invalid), u.path+": a path starting with ~", "write the path relative to the workspace, without ~")
		}
		real, err := ws.Resolve(u.path, u.access)
		var be *workspace.BoundaryError
		if errors.As(err, &be) && be.Code == workspace.AskFirst {
			// Agent or editor configuration: refused at the root, where
			// the box keeps it read-only; asked about below it.
			real, err = be.Resolved, nil
			if protectedName(ws.Root(), real) == "" {
				return Verdict{Kind: Ask, Code: string(be.Code), Reason: be.Error(), Hint: be.Hint()}
			}
		}
		if err != nil {
			return boundary(err)
		}
		if n := protectedName(ws.Root(), real); n != "" && u.access == w {
			return deny(string(workspace.Protected), fmt.Sprintf("%q resolves to %q, under %s, which holds code or settings another program runs; vtexec's box keeps it read-only for commands too", u.path, real, n),
				"change the agent's or editor's settings yourself; write somewhere else in the workspace")
		}
	}
	return Verdict{Kind: Pass}
}

// protectedName is the entry of workspace.ProtectedNames (names at the
// workspace root the kernel box keeps read-only) that real is or lies
// under; "" if none.
func protectedName(root, real string) string {
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == "." || strings.HasPrefix(rel, "../") {
		return ""
	}
	first, _, _ := strings.Cut(rel, "/")
	for _, n := range workspace.ProtectedNames {
		if strings.EqualFold(first, strings.TrimSuffix(n, "/")) {
			return n
		}
	}
	return ""
}

type pathUse struct {
	path   string
	access workspace.Access
}

// addPolicyRoots grants the extra roots of the workspace's policy, as the
// Engine does for commands.
func addPolicyRoots(ws *workspace.Workspace) (Verdict, bool) {
	files, err := vtexec.PolicyFilesFor(ws.Root())
	if err != nil {
		return deny(codes.BadRequest, err.Error(), "set XDG_CONFIG_HOME and XDG_STATE_HOME"), false
	}
	pol, err := vtexec.LoadPolicy(files)
	if err != nil {
		return requestError(err), false
	}
	for _, root := range pol.Roots {
		if err := ws.AddRoot(root.Path, root.Access == "read-write"); err != nil {
			return deny(codes.BadPolicy, root.File+": "+err.Error(), "fix or remove the [[root]]"), false
		}
	}
	return Verdict{}, true
}

// globDir is the fixed part of a glob pattern: its leading directories up
// to the first one with a glob character ("." if that is the first). A
// pattern that could reach above or beside that part (a ".." or a brace
// alternative with a "/" after it) is an error.
func globDir(pattern string) (string, error) {
	parts := strings.Split(pattern, "/")
	fixed := len(parts)
	for i, p := range parts {
		if strings.ContainsAny(p, "*?[{") {
			fixed = i
			break
		}
	}
	rest := strings.Join(parts[fixed:], "/")
	depth := 0
	for i, c := range rest {
		switch {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == '/' && depth > 0, c == '.' && strings.HasPrefix(rest[i:], ".."):
			return "", fmt.Errorf("the glob pattern %q can reach beyond %q (a .. or a brace alternative with a /)", pattern, strings.Join(parts[:fixed], "/"))
		}
	}
	dir := strings.Join(parts[:fixed], "/")
	switch {
	case dir == "" && strings.HasPrefix(pattern, "/"):
		return "/", nil
	case dir == "":
		return ".", nil
	}
	return filepath.Clean(dir), nil
}

// patchHeaders are the lines of a Codex patch that name a file.
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// PatchPaths are the files a Codex patch adds, updates, deletes or moves
// to, from its "*** Add File: ", "*** Update File: ", "*** Delete File: "
// and "*** Move to: " lines. A line that looks like such a header but is
// not exactly one is an error, so no spelling the hook misreads reaches
// the patch tool.
func PatchPaths(patch string) ([]string, error) {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		t := strings.TrimSpace(line)
		found := false
		for _, h := range patchHeaders {
			if p, ok := strings.CutPrefix(t, h); ok {
				out = append(out, strings.TrimSpace(p))
				found = true
			}
		}
		low := strings.ToLower(t)
		if !found && strings.HasPrefix(low, "***") && (strings.Contains(low, "file") || strings.Contains(low, "move")) &&
			low != "*** end of file" {
			return nil, fmt.Errorf("the patch line %q is not one of the headers vtexec reads", t)
		}
	}
	return out, nil
}
