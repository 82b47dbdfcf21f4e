package validators

import "testing"

func TestTee(t *testing.T) {
	runCases(t, []vcase{
		{args("tee"), ""},
		{args("tee", "out.txt"), ""},
		{args("tee", "-a", "a.txt", "src/log.txt"), ""},
		{args("tee", "--append", "-i", "-p", "--output-error=warn", "a.txt"), ""},
		{args("tee", "--output-error", "a.txt"), ""},
		{args("tee", "-"), ""},
		{args("tee", "/etc/passwd"), "outside_workspace"},
		{args("tee", "a.txt", "out/cron.d/x"), "outside_workspace"},
		{args("tee", "-a", ".git/hooks/pre-commit"), "protected_path"},
		{args("tee", ".vtexec/policy.toml"), "protected_path"},
		{args("tee", "/dev/stdout"), "outside_workspace"},
		{args("tee", "/proc/self/fd/1"), "outside_workspace"},
		{args("tee", "--output-error", "exit", "a.txt"), ""}, // "exit" is a file here
		{args("tee", "-x", "a.txt"), CodeUnknownFlag},
	})
}
