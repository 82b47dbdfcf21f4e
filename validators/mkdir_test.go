package validators

import "testing"

func TestMkdir(t *testing.T) {
	runCases(t, []vcase{
		{args("mkdir", "build"), ""},
		{args("mkdir", "-p", "build/a/b/c", "dist"), ""},
		{args("mkdir", "--parents", "-v", "--mode=755", "x"), ""},
		{args("mkdir", "-m", "4777", "x"), ""}, // set-ID bits mean nothing on a directory
		{args("mkdir", "-m", "a=rwx,g+s", "x"), ""},
		{args("mkdir", "-Z", "x"), ""},
		{args("mkdir", "--help"), ""},
		{args("mkdir", "-p", "dir/x"), ""},
		{args("mkdir", "/tmp/x"), "outside_workspace"},
		{args("mkdir", "-p", "../x/y"), "outside_workspace"},
		{args("mkdir", "-p", "out/x"), "outside_workspace"},
		{args("mkdir", "-p", "new/../../x"), "bad_path"},
		{args("mkdir", ".git/hooks"), "protected_path"},
		{args("mkdir", "-p", "src/.git/hooks"), "protected_path"},
		{args("mkdir", "-p", "x/.GIT"), "protected_path"},
		{args("mkdir", ".vtexec"), "protected_path"},
		{args("mkdir", "--context=system_u:object_r:shadow_t:s0", "x"), CodeForbiddenFlag},
		{args("mkdir", "-m"), CodeBadUsage},
		{args("mkdir"), CodeBadUsage},
		{args("mkdir", "-q", "x"), CodeUnknownFlag},
	})
}
