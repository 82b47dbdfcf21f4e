package validators

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/workspace"
)

// checkTreeWrites is for writes that reach every entry below a directory
// (cp -r, chmod -R): protection is by name (.git anywhere, .vtexec at the
// root), so the tree at real is walked, without following symbolic links,
// and every entry named .git or .vtexec is checked where the write puts
// it: landing(rel), rel being the entry's path below real. A tree too
// large to walk is refused.
func checkTreeWrites(c *Call, op, real string, landing func(rel string) string) error {
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil
	}
	err := walkTree(c.WS, real, rmTreeLimit, func(p string, e fs.DirEntry) (bool, error) {
		if strings.EqualFold(e.Name(), ".git") || strings.EqualFold(e.Name(), ".vtexec") {
			rel, err := filepath.Rel(real, p)
			if err != nil {
				return false, err
			}
			if err := c.WritePath(landing(rel)); err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if errors.Is(err, errTreeTooLarge) {
		return refuse(CodeBadUsage, "name its subdirectories one at a time",
			"%s: %q holds more than %d entries, too many to check for .git and .vtexec", c.Program(), op, rmTreeLimit)
	}
	return err
}

// checkFilesWritten is for a formatter that rewrites the files whose
// names match below a directory operand (gofmt -w, black): each of them
// is a write, checked where it leads (a link named x.go is written
// through). A file operand is a write itself; skip, if set, names the
// directories the program does not go into. A tree too large to walk is
// refused.
func checkFilesWritten(c *Call, op string, match, skip func(name string) bool) error {
	if err := c.WritePath(op); err != nil {
		return err
	}
	real, err := c.WS.Resolve(op, workspace.Write)
	if err != nil {
		return pathFinding(c.Program(), op, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil
	}
	err = walkTree(c.WS, real, rmTreeLimit, func(p string, e fs.DirEntry) (bool, error) {
		if e.IsDir() {
			return skip == nil || !skip(e.Name()), nil
		}
		if match(e.Name()) {
			if err := c.WritePath(p); err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if errors.Is(err, errTreeTooLarge) {
		return refuse(CodeBadUsage, "name its subdirectories one at a time",
			"%s: %q holds more than %d entries, too many to check for files it would write", c.Program(), op, rmTreeLimit)
	}
	return err
}

// errTreeTooLarge is what walkTree returns past its limit of entries.
var errTreeTooLarge = errors.New("too many entries to walk")

// walkTree visits every entry below dir, without following symbolic
// links; visit says whether to go into a directory entry. It stops at the
// first error visit returns, or with errTreeTooLarge after limit entries.
// Directories it cannot read are skipped.
// The entries read count against ws's budget for the request (nil: none),
// which ends the walk with a check_limit finding once spent.
func walkTree(ws *workspace.Workspace, dir string, limit int, visit func(path string, e fs.DirEntry) (descend bool, err error)) error {
	seen := 0
	stack := []string{dir}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		entries, _ := os.ReadDir(d)
		if ws != nil {
			if err := ws.Spend(len(entries) + 1); err != nil {
				return budgetFinding(err)
			}
		}
		for _, e := range entries {
			if seen++; seen > limit {
				return errTreeTooLarge
			}
			p := filepath.Join(d, e.Name())
			descend, err := visit(p, e)
			if err != nil {
				return err
			}
			if descend && e.IsDir() {
				stack = append(stack, p)
			}
		}
	}
	return nil
}

// checkTreeLanding checks a copy or move of the entry at src (absolute,
// its parent resolved, the entry itself not followed) to landing.
// followTop follows src if it is a symbolic link (cp without -P);
// recursive takes a directory's entries too. For every entry it creates:
//   - where something already is, the write goes there (cp writes
//     through a link it finds): that place must be writable;
//   - an entry named .git or .vtexec must be writable where it lands;
//   - a symbolic link keeps its text, so from where it lands it must
//     still lead to a writable place inside the workspace;
//   - with backups (backup is the suffix), an entry replaced below the
//     top is kept as NAME+suffix, which must be writable too.
func checkTreeLanding(c *Call, op, src, landing string, followTop, recursive bool, backup string) error {
	type item struct{ path, land string }
	fi, err := os.Lstat(src)
	if err != nil {
		return nil // nothing there: the program fails
	}
	if fi.Mode()&os.ModeSymlink != 0 && followTop {
		if fi, err = os.Stat(src); err != nil {
			return nil
		}
	}
	// Where the copy lands, as the kernel will find it (a link there is
	// written through); the entries below land in that directory.
	base, err := c.WS.Resolve(landing, workspace.Write)
	if err != nil {
		return pathFinding(c.Program(), landing, err)
	}
	seen := 0
	stack := []item{{src, base}}
	isLink := fi.Mode()&os.ModeSymlink != 0
	isDir := fi.IsDir()
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen++; seen > rmTreeLimit {
			return refuse(CodeBadUsage, "name its subdirectories one at a time",
				"%s: %q holds more than %d entries, too many to check", c.Program(), op, rmTreeLimit)
		}
		if it.path != src {
			e, err := os.Lstat(it.path)
			if err != nil {
				continue
			}
			isLink, isDir = e.Mode()&os.ModeSymlink != 0, e.IsDir()
		}
		name := filepath.Base(it.land)
		_, exists := os.Lstat(it.land)
		if exists == nil || strings.EqualFold(name, ".git") || strings.EqualFold(name, ".vtexec") {
			if err := c.WritePath(it.land); err != nil {
				return err
			}
		}
		if exists == nil && backup != "" {
			if err := c.WritePath(it.land + backup); err != nil {
				return err
			}
		}
		if isLink {
			if err := checkLinkLanding(c, it.path, it.land); err != nil {
				return err
			}
			// A link already at the landing is replaced where it sits
			// (mv, cp -P -f), not written through: judge it there too.
			if it.path == src && base != landing {
				if err := checkLinkLanding(c, it.path, landing); err != nil {
					return err
				}
			}
			continue
		}
		if !isDir || !recursive {
			continue
		}
		entries, _ := os.ReadDir(it.path)
		for _, e := range entries {
			stack = append(stack, item{filepath.Join(it.path, e.Name()), filepath.Join(it.land, e.Name())})
		}
	}
	return nil
}

// checkLinkLanding checks that the symbolic link at path, copied or moved
// to land, leads from there to a writable place inside the workspace, and
// that it does so where it is now too: links copied with it (its
// siblings) exist at the source but not yet at the landing, so a target
// through one of them is judged where they are.
func checkLinkLanding(c *Call, path, land string) error {
	target, err := os.Readlink(path)
	if err != nil {
		return nil
	}
	if _, err := c.WS.Resolve(path, workspace.Write); err != nil {
		f := pathFinding(c.Program(), path, err)
		f.Reason = fmt.Sprintf("%s: the symbolic link %s -> %s leads to a place that may not be written: %s",
			c.Program(), c.WS.Rel(path), target, err)
		return f
	}
	dest := target
	if !filepath.IsAbs(target) {
		// The directory the link lands in is free of links: resolved
		// where it exists, and made of new directories where it does
		// not. So ".." in the target can be taken lexically from it.
		dir, err := c.WS.Resolve(filepath.Dir(land), workspace.Read)
		if err != nil {
			return pathFinding(c.Program(), land, err)
		}
		dest = filepath.Join(dir, target)
	}
	if _, err := c.WS.Resolve(dest, workspace.Write); err != nil {
		f := pathFinding(c.Program(), land, err)
		f.Reason = fmt.Sprintf("%s: the symbolic link %s -> %s would lead from %s to %s: %s",
			c.Program(), c.WS.Rel(path), target, c.WS.Rel(land), dest, err)
		return f
	}
	return nil
}

// oneSourceIfLinks refuses a cp or mv of several sources when one of them
// is, or (recursive) holds, a symbolic link that is copied or moved as a
// link: each source is checked against the tree as it was before the
// command, and a link an earlier source puts in place could redirect
// where a later one is read from or lands.
func oneSourceIfLinks(c *Call, ops []string, copiesLink, recursive bool) error {
	if len(ops) < 2 || !copiesLink {
		return nil
	}
	for _, src := range ops {
		entry, _, err := locateEntry(c.WS, src)
		if err != nil {
			continue
		}
		if holds, err := holdsLink(c.WS, entry, recursive); err != nil {
			return err
		} else if holds {
			return refuse(CodeBadUsage, "copy or move it on its own: "+c.Program()+" "+src+" DEST && ...",
				"%s: %q is or holds a symbolic link, and other sources are given: a link the command puts in place could redirect the next source", c.Program(), src)
		}
	}
	return nil
}

// holdsLink reports whether p is a symbolic link or, when recursive, a
// directory with one below it (looking at rmTreeLimit entries at most,
// and saying yes beyond that).
func holdsLink(ws *workspace.Workspace, p string, recursive bool) (bool, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return true, nil
	}
	if !fi.IsDir() || !recursive {
		return false, nil
	}
	found := errors.New("found")
	err = walkTree(ws, p, rmTreeLimit, func(_ string, e fs.DirEntry) (bool, error) {
		if e.Type()&os.ModeSymlink != 0 {
			return false, found
		}
		return true, nil
	})
	var f *Finding
	if errors.As(err, &f) {
		return false, f // the check's budget is spent
	}
	return err != nil, nil // a link, or too many entries to be sure
}

// checkFollowedTrees is for reads that follow symbolic links while they
// walk directories (grep -R, rg -L, diff on directories): below each of
// ops (resolved; "-" is standard input) every symbolic link must lead to
// a readable place inside the workspace, and a link to a directory is
// walked in turn. what names the command that follows the links ("grep
// -R"), for the messages; alternative is the hint. A tree too large to
// walk is refused.
func checkFollowedTrees(c *Call, what, alternative string, ops []string) error {
	seen := map[string]bool{}
	var dirs []string
	for _, op := range ops {
		if op == "-" || op == "/dev/null" {
			continue
		}
		real, err := c.WS.Resolve(op, workspace.Read)
		if err != nil {
			return pathFinding(c.Program(), op, err)
		}
		if !seen[real] {
			seen[real] = true
			dirs = append(dirs, real)
		}
	}
	entries := 0
	for len(dirs) > 0 {
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		err := walkTree(c.WS, dir, rmTreeLimit, func(p string, e fs.DirEntry) (bool, error) {
			if entries++; entries > rmTreeLimit {
				return false, errTreeTooLarge
			}
			if e.Type()&fs.ModeSymlink == 0 {
				return true, nil
			}
			target, err := c.WS.Resolve(p, workspace.Read)
			if err != nil {
				f := pathFinding(c.Program(), p, err)
				dest, _ := os.Readlink(p)
				f.Reason = fmt.Sprintf("%s follows the symbolic link %s -> %s: %s", what, c.WS.Rel(p), dest, err)
				f.Hint = alternative
				return false, f
			}
			if fi, err := os.Stat(target); err == nil && fi.IsDir() && !seen[target] {
				seen[target] = true
				dirs = append(dirs, target)
			}
			return false, nil
		})
		if errors.Is(err, errTreeTooLarge) {
			return refuse(CodeBadUsage, alternative,
				"%s: more than %d entries to check for symbolic links leading out of the workspace", what, rmTreeLimit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
