package validators

import "testing"

func TestChmod(t *testing.T) {
	runCases(t, []vcase{
		{args("chmod", "+x", "a.txt"), ""},
		{args("chmod", "u+x,go-w", "a.txt", "b.txt"), ""},
		{args("chmod", "755", "src"), ""},
		{args("chmod", "-R", "go-w", "src"), ""},
		{args("chmod", "0644", "a.txt"), ""},
		{args("chmod", "--reference=a.txt", "b.txt"), ""},
		{args("chmod", "u+s", "a.txt"), CodeForbiddenFlag},
		{args("chmod", "4755", "a.txt"), CodeForbiddenFlag},
		{args("chmod", "+t", "dir"), CodeForbiddenFlag},
		{args("chmod", "g=rws", "a.txt"), CodeForbiddenFlag},
		{args("chmod", "+x", "/etc/passwd"), "outside_workspace"},
		{args("chmod", "+x", "out/passwd"), "outside_workspace"},
		{args("chmod", "+x", ".git/config"), "protected_path"},
		{args("chmod", "--no-preserve-root", "-R", "777", "."), CodeForbiddenFlag},
		{args("chmod", "--reference=/etc/shadow", "a.txt"), "outside_workspace"},
		{args("chmod", "+x"), CodeBadUsage},
		{args("chmod", "abc", "a.txt"), CodeBadUsage},
		{args("chmod", "99999", "a.txt"), CodeBadUsage},
		{args("chmod", "-w", "a.txt"), CodeUnknownFlag},
	})
}
