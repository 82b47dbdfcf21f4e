package validators

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTree(t *testing.T) {
	runCases(t, []vcase{
		{args("tree"), ""},
		{args("tree", "."), ""},
		{args("tree", "-L", "2", "src"), ""},
		{args("tree", "-aL", "2"), ""},
		{args("tree", "-a", "-I", "node_modules|.git", "--dirsfirst"), ""},
		{args("tree", "-P", "*.go", "--prune", "--matchdirs", "--ignore-case", "src", "dir"), ""},
		{args("tree", "-dfixqNQpugshDFvtcUrAnCSi", "."), ""},
		{args("tree", "-J", "--noreport", "--si", "--du", "--inodes", "--device", "--metafirst"), ""},
		{args("tree", "-X", "--filesfirst", "--sort=size", "--sort", "mtime"), ""},
		{args("tree", "--charset=ascii", "--charset", "utf-8", "--timefmt", "%F", "--filelimit", "50"), ""},
		{args("tree", "--gitignore", "."), ""},
		{args("tree", "--info", "."), CodeForbiddenFlag},
		{args("tree", "--gitfile", "a.txt", "--infofile=b.txt"), ""},
		{args("tree", "-H", ".", "-T", "title", "--nolinks", "--hintro", "a.txt", "--houtro=b.txt", "-o", "out.html"), ""},
		{args("tree", "-H", "-o"), ""}, // -o is the base HREF
		{args("tree", "-o", "listing.txt", "src"), ""},
		{args("tree", "-oa", "listing.txt", "src"), ""},
		{args("tree", "--fromfile", "a.txt", "b.txt"), ""},
		{args("tree", "--fromfile", "--fflinks", "."), ""},
		{args("tree", "--", "-a"), ""}, // a directory named -a
		{args("tree", "-"), ""},
		{args("tree", "--help"), ""},
		{args("tree", "--version"), ""},

		// -l follows links out; -R writes 00Tree.html everywhere.
		{args("tree", "-l"), CodeForbiddenFlag},
		{args("tree", "-al", "."), CodeForbiddenFlag},
		{args("tree", "-R", "-H", ".", "-L", "2"), CodeForbiddenFlag},
		{args("tree", "-L", "1", "-aR"), CodeForbiddenFlag},
		// A value is the next word, not the rest of the cluster.
		{args("tree", "-oa", ".git/config"), "protected_path"},
		{args("tree", "-ao", "../out"), "outside_workspace"},
		{args("tree", "-PoI", "x", "/tmp/out", "y"), "outside_workspace"},
		{args("tree", "-oo", "a", ".git/x"), "protected_path"},
		{args("tree", "-L2", "src"), CodeBadUsage}, // the level is "src"
		// Paths.
		{args("tree", "-o", "/tmp/x"), "outside_workspace"},
		{args("tree", "-o", ".git/hooks/pre-commit"), "protected_path"},
		{args("tree", ".."), "outside_workspace"},
		{args("tree", "out"), "outside_workspace"},
		{args("tree", "/"), "outside_workspace"},
		{args("tree", "--", "/etc"), "outside_workspace"},
		{args("tree", "--fromfile", "/etc/passwd"), "outside_workspace"},
		{args("tree", "--fromfile", "out/passwd"), "outside_workspace"},
		{args("tree", "--gitfile", "/etc/passwd"), "outside_workspace"},
		{args("tree", "--infofile=../x"), "outside_workspace"},
		{args("tree", "-H", ".", "--hintro", "/etc/passwd"), "outside_workspace"},
		{args("tree", "--houtro=out/shadow"), "outside_workspace"},
		// Unknown, abbreviated, or malformed.
		{args("tree", "--output", "x"), CodeUnknownFlag},
		{args("tree", "--fromf", "a.txt"), CodeUnknownFlag},
		{args("tree", "--charsetx", "y"), CodeUnknownFlag},
		{args("tree", "-Z"), CodeUnknownFlag},
		{args("tree", "-a-"), CodeUnknownFlag},
		{args("tree", "--hyperlink"), CodeUnknownFlag},
		{args("tree", "-o"), CodeBadUsage},
		{args("tree", "-aP"), CodeBadUsage},
		{args("tree", "--gitfile"), CodeBadUsage},
		{args("tree", "--noreport=1"), CodeBadUsage},
		{args("tree", "-L", "two"), CodeBadUsage},
		{args("tree", "--filelimit=many"), CodeBadUsage},
	})
}

func TestParseTree(t *testing.T) {
	a, err := parseTree(treeSpec, args("-PIa", "p1", "i1", "dir", "--sort", "name", "--charset=x", "--", "-d"))
	require.NoError(t, err)
	assert.Equal(t, []string{"dir", "-d"}, a.Operands)
	assert.Equal(t, []string{"p1"}, a.Values("P"))
	assert.Equal(t, []string{"i1"}, a.Values("I"))
	assert.Equal(t, []string{"name"}, a.Values("sort"))
	assert.Equal(t, []string{"x"}, a.Values("charset"))
	assert.True(t, a.Has("a"))
}

func TestTreeCatalogue(t *testing.T) {
	e := treeSpec.Entry()
	assert.Equal(t, "tree", e.Program)
	assert.Contains(t, e.Allowed, "-o FILE(written, confined)")
	var refused []string
	for _, r := range e.Refused {
		refused = append(refused, r.Flag)
	}
	assert.ElementsMatch(t, []string{"-l", "-R", "--info"}, refused)
}
