package validators

import "testing"

func TestMv(t *testing.T) {
	ws := rmWS(t)
	root := ws.Root()
	for _, c := range []vcase{
		{args("mv", "a.txt", "c.txt"), ""},
		{args("mv", "a.txt", "b.txt", "dir"), ""},
		{args("mv", "-t", "dir", "a.txt", "b.txt"), ""},
		{args("mv", "--target-directory=dir", "a.txt"), ""},
		{args("mv", "-T", "dir", "newdir"), ""},
		{args("mv", "-fv", "src", "lib"), ""},
		{args("mv", "src/", "lib"), ""},
		{args("mv", "-b", "a.txt", "b.txt"), ""},
		{args("mv", "--backup=numbered", "-S", ".bak", "a.txt", "b.txt"), ""},
		{args("mv", "-n", "-u", "a.txt", "b.txt"), ""},
		{args("mv", "--help"), ""},
		// A symbolic link is moved, not its target, and keeps its text: from
		// its new place it must still lead inside, and not into .git.
		{args("mv", "tosub", "dir"), ""}, // dir/tosub -> dir/sub: dangling, inside
		{args("mv", "self", "dir"), ""},
		{args("mv", "out", "etc-link"), "outside_workspace"},
		{args("mv", "dangle", "dir"), "outside_workspace"},
		// Sources are taken away: protected and outside ones may not be.
		{args("mv", ".git/config", "config"), "protected_path"},
		{args("mv", ".git", "git-backup"), "protected_path"},
		{args("mv", ".git/lnk", "lnk"), "protected_path"},
		{args("mv", "sub/deep/.git", "x"), "protected_path"},
		{args("mv", "out/passwd", "x"), "outside_workspace"},
		{args("mv", "out/", "x"), "outside_workspace"},
		{args("mv", "/etc/passwd", "x"), "outside_workspace"},
		{args("mv", "../x", "y"), "outside_workspace"},
		{args("mv", ".", "x"), "protected_path"},
		{args("mv", root, "x"), "protected_path"},
		{args("mv", "self/", "x"), "protected_path"},
		{args("mv", "..", "x"), "outside_workspace"},
		{args("mv", "src/.", "x"), CodeBadUsage},
		// The destination, where each source lands, and any backup.
		{args("mv", "a.txt", "/tmp/x"), "outside_workspace"},
		{args("mv", "a.txt", "out/x"), "outside_workspace"},
		{args("mv", "a.txt", "dangle"), "outside_workspace"},
		{args("mv", "a.txt", ".git/hooks/pre-commit"), "protected_path"},
		{args("mv", "a.txt", ".git"), "protected_path"},
		{args("mv", "a.txt", ".git/lnk"), "protected_path"},
		{args("mv", "-t", ".git", "a.txt"), "protected_path"},
		{args("mv", "-t", "/tmp", "a.txt"), "outside_workspace"},
		{args("mv", "a.txt", ".vtexec"), "protected_path"},
		{args("mv", "src", "sub/deep"), ""},
		{args("mv", "-S", "/../../../tmp/x", "a.txt", "b.txt"), CodeForbiddenFlag},
		{args("mv", "--suffix=/x", "-b", "a.txt", "b.txt"), CodeForbiddenFlag},
		{args("mv", "-b", "-S", "it", "a.txt", ".g"), "protected_path"},
		{args("mv", "-b", "-S", "it", "a.txt", "dir/.g"), "protected_path"},
		// Usage and flags.
		{args("mv", "a.txt"), CodeBadUsage},
		{args("mv", "-t", "dir"), CodeBadUsage},
		{args("mv"), CodeBadUsage},
		{args("mv", "--update=all", "a.txt", "b.txt"), CodeBadUsage},
		{args("mv", "--exchange", "a.txt", "b.txt"), CodeUnknownFlag},
		{args("mv", "--tar=dir", "a.txt"), CodeUnknownFlag},
	} {
		if got := checkCode(t, ws, c.argv...); got != c.code {
			t.Errorf("%q: got %q, want %q", c.argv, got, c.code)
		}
	}
}

// A directory named .git lands on a protected path when moved into
// another directory.
func TestMvLanding(t *testing.T) {
	ws := rmWS(t)
	if got := checkCode(t, ws, "mv", "sub/deep/.git", "dir"); got != "protected_path" {
		t.Errorf("got %q", got)
	}
	if got := checkCode(t, ws, "mv", "a.txt", "sub/deep"); got != "" {
		t.Errorf("got %q", got)
	}
}
