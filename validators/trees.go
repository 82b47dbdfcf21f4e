package validators

import (
	"os"
	"path/filepath"
	"strings"
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
	seen := 0
	stack := []string{real}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if seen++; seen > rmTreeLimit {
				return refuse(CodeBadUsage, "name its subdirectories one at a time",
					"%s: %q holds more than %d entries, too many to check for .git and .vtexec", c.Program(), op, rmTreeLimit)
			}
			p := filepath.Join(d, e.Name())
			if strings.EqualFold(e.Name(), ".git") || strings.EqualFold(e.Name(), ".vtexec") {
				rel, err := filepath.Rel(real, p)
				if err != nil {
					return err
				}
				if err := c.WritePath(landing(rel)); err != nil {
					return err
				}
			}
			if e.IsDir() {
				stack = append(stack, p)
			}
		}
	}
	return nil
}
