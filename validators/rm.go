package validators

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/workspace"
)

// rm is never simply allowed: inside the workspace a person approves each
// removal, told exactly what would go. Outside the workspace, on a
// protected path, on the workspace root (or anything holding it) it is
// refused outright, approval or not.
//
// rm removes a directory entry, not what a symbolic link points to, so what
// is checked is where each operand sits: its parent directory resolved, its
// own name kept (see checkEntry). A link inside the workspace that points
// outside may be removed; a path through a link that leads outside may not.

// CodeDestructive marks a removal a person must approve.
const CodeDestructive = codes.Destructive

// rmTreeLimit is how many entries a recursive removal may take with it:
// vtexec looks through all of them for a nested .git before asking, and
// will not ask about what it could not look through.
const rmTreeLimit = 1_000_000

// rmListLimit is how many operands the question to a person describes one
// by one.
const rmListLimit = 20

var rmSpec = &Spec{Name: "rm",
	Doc: "files to remove; each must sit inside the workspace and not be protected (a symbolic link is removed, not its target); " +
		"never the workspace root or a directory holding a .git; a person approves every removal",
	Operands: rmOperands, Flags: []Flag{
		{Short: "f", Long: "force"}, {Short: "i"}, {Short: "I"},
		{Long: "interactive", Arg: Text, Optional: true},
		{Long: "one-file-system"}, {Long: "preserve-root", Arg: Text, Optional: true},
		{Short: "r", Long: "recursive"}, {Short: "R"}, {Short: "d", Long: "dir"},
		{Short: "v", Long: "verbose"}, {Long: "help"}, {Long: "version"},
		{Long: "no-preserve-root", Forbid: "removes rm's own guard against deleting /"},
	}}

func registerRm() { registerSpec(rmSpec) }

const rmHint = "a person must approve removals; or move the files into a trash directory inside the workspace with mv"

func rmOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		return nil
	}
	if len(a.Operands) == 0 {
		return refuse(CodeBadUsage, "name what to remove: rm FILE...", "rm: no file given")
	}
	recursive := a.Has("r") || a.Has("R")
	var what []string
	for _, op := range a.Operands {
		loc, err := checkEntry(c, op, "remove")
		if err != nil {
			return err
		}
		d, err := describeRemoval(c, op, loc, recursive, a.Has("d"), a.Has("one-file-system"))
		if err != nil {
			return err
		}
		what = append(what, d)
	}
	n := len(what)
	if n > rmListLimit {
		what = append(what[:rmListLimit], fmt.Sprintf("and %d more", n-rmListLimit))
	}
	return &Finding{Ask: true, Code: CodeDestructive, Hint: rmHint,
		Reason: fmt.Sprintf("%s would remove %s: %s", c.Program(), countNoun(n, "entry", "entries"), strings.Join(what, "; "))}
}

// helpOrVersion reports whether --help or --version was given: the program
// prints and exits before acting on any operand.
func helpOrVersion(a *Args) bool { return a.Has("help") || a.Has("version") }

// describeRemoval says, for the person asked, what removing the entry at
// loc takes away. A recursive removal of a directory is refused when a .git
// lies anywhere inside it, when it is too large to look through, when the
// directory is a mount point, or when another file system is mounted below
// it (unless --one-file-system makes rm leave that alone).
func describeRemoval(c *Call, op, loc string, recursive, emptyDirs, oneFS bool) (string, error) {
	name := strconv.Quote(wsDisplay(c.WS, loc))
	fi, err := os.Lstat(loc)
	switch {
	case err != nil:
		return name + " (does not exist)", nil
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(loc)
		return fmt.Sprintf("%s (a symbolic link to %q; the link is removed, not what it points to)", name, target), nil
	case fi.IsDir() && !recursive:
		if emptyDirs {
			return name + " (a directory, removed only if empty)", nil
		}
		return name + " (a directory: rm leaves it without -r)", nil
	case fi.IsDir():
		mounted := func(p, hint string) error {
			return refuse(string(workspace.Outside), hint,
				"%s: %q is where another file system is mounted; rm -r would remove what is on it", c.Program(), wsDisplay(c.WS, p))
		}
		if dv, ok := deviceOf(loc); ok {
			if pv, ok := deviceOf(filepath.Dir(loc)); ok && pv != dv {
				// Even --one-file-system empties the operand itself.
				return "", mounted(loc, "leave mounted file systems alone; a person can remove their files")
			}
		}
		t := scanRemoval(c.WS, loc, rmTreeLimit)
		if t.spent != nil {
			return "", t.spent
		}
		if t.mount != "" && !oneFS {
			return "", mounted(t.mount, "add --one-file-system to leave it alone, or remove the entries around it by name")
		}
		if t.git != "" {
			return "", refuse(string(workspace.Protected), "remove the other entries of "+op+" by name, leaving the repository",
				"%s: %q holds a git repository (%s), which is write-protected; refusing to remove it", c.Program(), op, strconv.Quote(wsDisplay(c.WS, t.git)))
		}
		if t.truncated {
			return "", refuse(CodeBadUsage, "remove its subdirectories one at a time",
				"%s: %q holds more than %d entries, too many to check for a nested .git", c.Program(), op, rmTreeLimit)
		}
		all := "all removed"
		if t.mount != "" {
			all = "removed, except what is on other file systems"
		}
		return fmt.Sprintf("%s (a directory with %s and %s, %s)", name,
			countNoun(t.files, "file", "files"), countNoun(t.dirs, "subdirectory", "subdirectories"), all), nil
	case fi.Mode().IsRegular():
		return fmt.Sprintf("%s (a file, %s)", name, countNoun(int(fi.Size()), "byte", "bytes")), nil
	default:
		return name + " (a special file)", nil
	}
}

// removalTree is what scanRemoval found below a directory.
type removalTree struct {
	files, dirs int
	git         string // the first entry named .git, if any
	mount       string // the first directory on another file system, if any
	truncated   bool   // more than the limit of entries
	spent       error  // the check's budget ran out (a check_limit finding)
}

// scanRemoval counts the entries below dir without following symbolic links,
// stopping at the first entry named .git (in any case) or at limit entries.
// It does not go into a directory on another file system (a mount point),
// but notes the first one. Directories it cannot read are skipped: rm
// cannot empty them either.
func scanRemoval(ws *workspace.Workspace, dir string, limit int) removalTree {
	var t removalTree
	dev, _ := deviceOf(dir)
	stack := []string{dir}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		entries, _ := os.ReadDir(d)
		if ws != nil {
			if err := ws.Spend(len(entries) + 1); err != nil {
				t.spent = budgetFinding(err)
				return t
			}
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			if strings.EqualFold(e.Name(), ".git") {
				t.git = p
				return t
			}
			if e.IsDir() {
				t.dirs++
				if dv, ok := deviceOf(p); ok && dv != dev {
					if t.mount == "" {
						t.mount = p
					}
				} else {
					stack = append(stack, p)
				}
			} else {
				t.files++
			}
			if t.files+t.dirs > limit {
				t.truncated = true
				return t
			}
		}
	}
	return t
}

// deviceOf returns the device (file system) that p itself is on.
func deviceOf(p string) (uint64, bool) {
	id, err := fsutil.Stat(p, false)
	if err != nil || !id.Exists {
		return 0, false
	}
	return id.Dev, true
}

// checkEntry checks that the directory entry op names may be taken away
// from where it is (removed by rm, moved by mv) and returns its real
// location. The location is op's parent directory with every symlink
// resolved, joined with op's last name, which is not followed: a symbolic
// link is where it sits, not where it points. That directory must be
// writable and inside the workspace, and the name must not be protected.
// When op ends in "/", "." or "..", the kernel follows the last name, so
// the whole path is resolved and checked as a write instead.
//
// Whatever the path, the workspace root itself, any directory holding it,
// the home directory and / are refused, each with a reason saying so. verb
// ("remove", "move") names the action in those reasons.
func checkEntry(c *Call, op, verb string) (string, error) {
	prog := c.Program()
	loc, follows, err := locateEntry(c.WS, op)
	if err != nil {
		return "", pathFinding(prog, op, err)
	}
	if f := guardRoots(c, op, loc, verb); f != nil {
		return "", f
	}
	trimmed := strings.TrimRight(op, "/")
	name := trimmed[strings.LastIndexByte(trimmed, '/')+1:]
	if name == "." || name == ".." {
		return "", refuse(CodeBadUsage, "name the directory itself, without a trailing . or ..",
			"%s: %q ends in %q, which %s will not act on", prog, op, name, prog)
	}
	if follows {
		return loc, c.WritePath(op)
	}
	parent, _ := workspace.SplitLast(trimmed)
	if _, err := c.WS.Resolve(parent, workspace.Write); err != nil {
		var be *workspace.BoundaryError
		if errors.As(err, &be) {
			return "", boundaryFinding(be, fmt.Sprintf("%s: %q: its directory %s", prog, op, be.Error()))
		}
		return "", pathFinding(prog, op, err)
	}
	if strings.EqualFold(name, ".git") || strings.EqualFold(name, ".vtexec") {
		return "", refuse(string(workspace.Protected), "leave .git and .vtexec alone; act on other files",
			"%s: %q is write-protected: an entry named .git or .vtexec is never removed or moved", prog, op)
	}
	return loc, nil
}

// locateEntry returns the real location of the entry op names (see checkEntry)
// wherever it is, inside the workspace or not, and whether the last name
// is followed. Only a path that cannot be resolved at all is an error.
func locateEntry(ws *workspace.Workspace, op string) (string, bool, error) {
	if op == "" || strings.IndexByte(op, 0) >= 0 {
		_, err := ws.Resolve(op, workspace.Read) // refuses both
		return "", false, err
	}
	trimmed := strings.TrimRight(op, "/")
	if trimmed == "" {
		return "/", true, nil
	}
	name := trimmed[strings.LastIndexByte(trimmed, '/')+1:]
	follows := trimmed != op || name == "." || name == ".."
	if follows {
		real, err := resolveOutsideToo(ws, op)
		return real, true, err
	}
	dir, _ := workspace.SplitLast(trimmed)
	parent, err := resolveOutsideToo(ws, dir)
	if err != nil {
		return "", false, err
	}
	return filepath.Join(parent, name), false, nil
}

// resolveOutsideToo resolves p like Resolve, but returns the real path of
// one outside the workspace too, so that it can be named in the refusal.
func resolveOutsideToo(ws *workspace.Workspace, p string) (string, error) {
	real, err := ws.Resolve(p, workspace.Read)
	var be *workspace.BoundaryError
	if errors.As(err, &be) && be.Code == workspace.Outside && be.Resolved != "" {
		return be.Resolved, nil
	}
	return real, err
}

// guardRoots refuses the locations no removal or move may touch: /, the
// home directory, any directory holding the workspace, and the workspace
// root itself. All but the last are outside the workspace anyway; the
// reason says plainly what they are.
func guardRoots(c *Call, op, loc, verb string) *Finding {
	prog, root := c.Program(), c.WS.Root()
	hint := "name the entries inside the workspace to " + verb + " instead"
	outside := func(what string) *Finding {
		return refuse(string(workspace.Outside), hint, "%s: %q is %s, which is outside the workspace; refusing", prog, op, what)
	}
	switch {
	case loc == "/":
		return outside("the root of the whole file system")
	case loc == root:
		return refuse(string(workspace.Protected), hint,
			"%s: %q is the workspace root itself; refusing to %s it", prog, op, verb)
	case loc == realHome():
		if op != loc {
			return outside(fmt.Sprintf("your home directory (%s)", loc))
		}
		return outside("your home directory")
	case strings.HasPrefix(root, loc+"/"):
		return outside(fmt.Sprintf("%s, a directory holding the workspace", loc))
	}
	return nil
}

// realHome is the real path of the user's home directory, or "".
func realHome() string {
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(h); err == nil {
		return real
	}
	return filepath.Clean(h)
}

// wsDisplay shows a real path relative to the workspace root when it is
// inside it.
func wsDisplay(ws *workspace.Workspace, real string) string {
	if ws.Contains(real) {
		return ws.Rel(real)
	}
	return real
}

// countNoun writes n with the singular or plural noun.
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
