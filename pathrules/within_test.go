package pathrules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// withinBySplitting is Within as it was first written: both paths split
// into their components, compared, the rest joined.
func withinBySplitting(root, p string, fold bool) (string, bool) {
	rp, pp := components(root), components(p)
	if len(pp) < len(rp) {
		return "", false
	}
	for i := range rp {
		if rp[i] != pp[i] && !(fold && strings.EqualFold(rp[i], pp[i])) {
			return "", false
		}
	}
	return strings.Join(pp[len(rp):], "/"), true
}

func TestWithinComparesWholeComponents(t *testing.T) {
	for _, c := range []struct {
		root, p, rel string
		fold, ok     bool
	}{
		{"/ws", "/ws", "", false, true},
		{"/ws", "/ws/a/b", "a/b", false, true},
		{"/ws/", "//ws//a//b/", "a/b", false, true},
		{"/ws", "/wsx/a", "", false, false},
		{"/ws/a", "/ws", "", false, false},
		{"/WS", "/ws/A", "A", true, true},
		{"/WS", "/ws/A", "", false, false},
		{"/", "/etc/passwd", "etc/passwd", false, true},
		{"", "a/b", "a/b", false, true},
	} {
		rel, ok := Within(c.root, c.p, c.fold)
		assert.Equal(t, c.ok, ok, "%q in %q", c.p, c.root)
		assert.Equal(t, c.rel, rel, "%q in %q", c.p, c.root)
	}
}

func FuzzWithinAsSplitting(f *testing.F) {
	for _, s := range [][2]string{{"/ws", "/ws/a"}, {"/ws/", "//ws//a//"}, {"/a/b", "/a"}, {"/Ab", "/aB/c"}, {"", "/"}} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, root, p string, fold bool) {
		rel, ok := Within(root, p, fold)
		wantRel, wantOK := withinBySplitting(root, p, fold)
		if ok != wantOK || rel != wantRel {
			t.Fatalf("Within(%q, %q, %v) = %q, %v; by splitting %q, %v", root, p, fold, rel, ok, wantRel, wantOK)
		}
	})
}
